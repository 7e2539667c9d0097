import type { Command } from 'commander';
import { CLI_DEFAULT_URL, CLI_URL_VARIABLE, loadCliSettings } from '@cds/config';
import { apiClient, type ApiClient } from './api-client';
import { UsageError } from './cli-errors';

export interface ApiOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** The options every operator API shortcut takes. */
export function withApiOptions(command: Command): Command {
  return command
    .option('--url <url>', `operator API base URL (default: $${CLI_URL_VARIABLE}, else ${CLI_DEFAULT_URL})`)
    .option('--token <token>', 'operator token (default: $OPERATOR_TOKEN, else the file ./data/operator-token)')
    .option('--json', 'print the raw JSON answer');
}

/** The client for the options given, the environment filling what they leave out. */
export function clientFor(options: ApiOptions): ApiClient {
  const settings = loadCliSettings();
  const token = options.token ?? settings.operatorToken;
  if (!token) throw new UsageError('no operator token: pass --token, set OPERATOR_TOKEN, or run where ./data/operator-token exists');
  const url = options.url ?? settings.apiUrl;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--url must be an http:// or https:// URL (got ${url})`);
  return apiClient(url.replace(/\/+$/, ''), token);
}

/** Path segment of a user-given value. */
export const pathSegment = (value: string): string => encodeURIComponent(value);
