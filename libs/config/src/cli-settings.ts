import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_IN_ONE_SECRETS } from './all-in-one-secrets';
import { ConfigError } from './config-error';
import type { Mode } from './config.types';
import { InvalidValueError } from './invalid-value';
import { urlParser } from './value-parsers';

// cdctl's own settings. They are not service configuration, so they stay out of
// the variable table that docs/configuration.md is generated from.

export const CLI_URL_VARIABLE = 'CDCTL_URL';
export const CLI_DEFAULT_URL = 'http://127.0.0.1:8080';

export interface CliSettings {
  /** CDCTL_URL: the API the operator shortcuts talk to. */
  readonly apiUrl: string;
  /** OPERATOR_TOKEN, else the all-in-one token file in the data directory, else null. */
  readonly operatorToken: string | null;
}

const parseApiUrl = urlParser(['http:', 'https:']);

/** Reads cdctl's environment; `dataDir` is where an all-in-one deployment keeps its operator token. Throws ConfigError. */
export function loadCliSettings(env: NodeJS.ProcessEnv = process.env, dataDir = 'data'): CliSettings {
  const url = env[CLI_URL_VARIABLE]?.trim() || CLI_DEFAULT_URL;
  try {
    parseApiUrl(url);
  } catch (error) {
    const problem = error instanceof InvalidValueError ? error.message : 'is invalid';
    throw new ConfigError(CLI_URL_VARIABLE, `${problem} (got ${JSON.stringify(url)})`);
  }
  return {
    apiUrl: url.replace(/\/+$/, ''),
    operatorToken: env.OPERATOR_TOKEN?.trim() || tokenFile(dataDir),
  };
}

/** Whose defaults `cdctl doctor` applies: split when AMQP_URL is set (split mode requires it), else all-in-one. */
export function cliDefaultMode(env: NodeJS.ProcessEnv = process.env): Mode {
  return env.AMQP_URL?.trim() ? 'split' : 'all-in-one';
}

function tokenFile(dataDir: string): string | null {
  const path = join(dataDir, ALL_IN_ONE_SECRETS.OPERATOR_TOKEN.file);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || null : null;
}
