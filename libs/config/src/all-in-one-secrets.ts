import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error';

/** The secrets all-in-one mode keeps in its data directory, with their file names and how a fresh one is made. */
export const ALL_IN_ONE_SECRETS = {
  OPERATOR_TOKEN: { file: 'operator-token', generate: () => randomBytes(32).toString('base64url') },
  // Not generated when DATA_ENCRYPTION_KEYS stands in for it.
  DATA_ENCRYPTION_KEY: { file: 'data-encryption-key', generate: () => randomBytes(32).toString('base64'), unlessSet: 'DATA_ENCRYPTION_KEYS' },
  ASSERTION_DEPLOYMENT_KEY: { file: 'assertion-deployment-key', generate: () => randomBytes(32).toString('base64url') },
} as const;

export type AllInOneSecret = keyof typeof ALL_IN_ONE_SECRETS;

export interface AllInOneSecrets {
  /** A copy of the given environment with the three secrets filled in. */
  readonly env: NodeJS.ProcessEnv;
  /** The secrets created by this call (first start). */
  readonly generated: readonly AllInOneSecret[];
  /** Where the operator token is kept (meaningful when it was not set in the environment). */
  readonly operatorTokenFile: string;
}

/**
 * Fills OPERATOR_TOKEN, DATA_ENCRYPTION_KEY and ASSERTION_DEPLOYMENT_KEY that
 * the environment leaves unset (or empty) from files in dataDir, creating the
 * directory and any missing file (mode 0600) with a fresh random value.
 */
export function ensureAllInOneSecrets(dataDir: string, env: NodeJS.ProcessEnv): AllInOneSecrets {
  const filled: NodeJS.ProcessEnv = { ...env };
  const generated: AllInOneSecret[] = [];
  for (const name of Object.keys(ALL_IN_ONE_SECRETS) as AllInOneSecret[]) {
    const secret: { file: string; generate: () => string; unlessSet?: string } = ALL_IN_ONE_SECRETS[name];
    if (env[name]?.trim() || (secret.unlessSet !== undefined && env[secret.unlessSet]?.trim())) continue;
    const { file, generate } = secret;
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const path = join(dataDir, file);
    const created = createOnce(path, generate());
    if (created) generated.push(name);
    filled[name] = readSecret(name, path);
  }
  return { env: filled, generated, operatorTokenFile: join(dataDir, ALL_IN_ONE_SECRETS.OPERATOR_TOKEN.file) };
}

/** Exclusive create, so two processes starting together keep the same value. */
function createOnce(path: string, value: string): boolean {
  try {
    writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readSecret(name: AllInOneSecret, path: string): string {
  const value = readFileSync(path, 'utf8').trim();
  if (value === '') throw new ConfigError(name, `is unset and its file ${path} is empty`);
  return value;
}
