import Joi from 'joi';
import { ConfigError } from './config-error';
import { buildConfigSchema, type VariableMeta } from './config-schema';
import type { Config, Mode, SplitServiceName } from './config.types';
import { VARIABLES, type VariableSpec } from './config-variables';
import { completeDataEncryptionKeys } from './data-encryption-keys';
import { deepFreeze } from './deep-freeze';
import { InvalidValueError } from './invalid-value';
import { checkAcmeDnsDelegation } from './acme-dns-delegation';
import { checkConnectionRules } from './connection-rules';
import { databaseConnection, type Connection } from './connections';
import { checkPortConflicts } from './port-conflicts';

export interface LoadConfigOptions {
  readonly mode: Mode;
  /** The split-mode service loading it: variables only other services need are then optional. */
  readonly service?: SplitServiceName;
  /** Defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

const SHOWN_VALUE_MAX = 80;

/** Validates the environment (reading no file but the CA bundles it names, no network) and returns the deep-frozen configuration. Throws ConfigError. */
export function loadConfig(opts: LoadConfigOptions): Config {
  const env = opts.env ?? process.env;
  const input = Object.fromEntries(
    Object.values(VARIABLES).map((spec) => [spec.name, env[spec.name]?.trim() || undefined] as const),
  );
  const schema = buildConfigSchema(opts.mode, opts.service);
  const { value, error } = schema.validate(input, { abortEarly: true, convert: true });
  if (error) throw toConfigError(schema, error, opts.mode, opts.service);
  // The schema has one key per entry of VARIABLES, each parsed by that entry's typed parser.
  const parsed = value as Record<string, unknown>;
  const config = completeDataEncryptionKeys({ ...Object.fromEntries(Object.entries(VARIABLES).map(([key, spec]) => [key, withNumbered(spec, parsed[spec.name], env)])), mode: opts.mode } as Config);
  checkPortConflicts(config);
  checkConnectionRules(config);
  checkAcmeDnsDelegation(config);
  return deepFreeze(config);
}

/** For entry points: on a bad configuration print the one line to stderr and exit 1. */
export function loadConfigOrExit(opts: LoadConfigOptions): Config {
  try {
    return loadConfig(opts);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

function toConfigError(schema: Joi.ObjectSchema, error: Joi.ValidationError, mode: Mode, service: SplitServiceName | undefined): ConfigError {
  const detail = error.details[0];
  const variable = String(detail?.path[0] ?? 'environment');
  const instead = Object.values(VARIABLES).find((spec) => spec.name === variable)?.unlessSet;
  if (detail?.type === 'any.required') {
    const split = service === undefined ? 'in split mode' : `in split mode (${service})`;
    const why = mode === 'split' ? split : '(all-in-one start-up generates it into the data directory)';
    return new ConfigError(variable, `is required ${why}${instead === undefined ? '' : ` unless ${instead} is set`}`);
  }
  if (detail?.type === 'any.unknown' && instead !== undefined) {
    return new ConfigError(variable, `is set together with ${instead}: set only one (${instead} lists every key, the one that seals first)`);
  }
  const cause: unknown = detail?.context?.error;
  const problem = cause instanceof InvalidValueError ? cause.message : 'is invalid';
  const meta = schema.extract(variable).describe().metas?.[0] as VariableMeta | undefined;
  const raw: unknown = detail?.context?.value;
  const shown = meta?.secret || typeof raw !== 'string' ? '' : ` (got ${showValue(raw)})`;
  return new ConfigError(variable, `${problem}${shown}`);
}

/** JSON-quoted (so it stays on one line), shortened, with any URL password hidden. */
function showValue(raw: string): string {
  const text = raw.replace(/(\/\/[^/@:\s]*:)[^/@\s]*@/, '$1***@');
  return JSON.stringify(text.length > SHOWN_VALUE_MAX ? `${text.slice(0, SHOWN_VALUE_MAX)}…` : text);
}

/**
 * For host-side commands that need nothing but the database (`cdctl migrate`):
 * DATABASE_URL and DATABASE_CA_BUNDLE, validated and defaulted exactly as in
 * `loadConfig` (neither depends on the mode).
 */
export function loadDatabaseConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  const settings = loadConfigSubset(['databaseUrl', 'databaseCaBundle'], { mode: 'split', env });
  checkConnectionRules({ ...settings, amqpUrl: null, amqpCaBundle: null });
  return databaseConnection(settings);
}

/**
 * For host-side commands that need a few settings (`cdctl doctor`): only the
 * named variables, validated and defaulted exactly as `loadConfig` does in `mode`.
 */
export function loadConfigSubset<K extends Exclude<keyof Config, 'mode'>>(keys: readonly K[], opts: LoadConfigOptions): Pick<Config, K> {
  const env = opts.env ?? process.env;
  const full = buildConfigSchema(opts.mode, opts.service);
  const names = keys.map((key) => VARIABLES[key].name);
  const schema = Joi.object(Object.fromEntries(names.map((name) => [name, full.extract(name)])));
  const input = Object.fromEntries(names.map((name) => [name, env[name]?.trim() || undefined] as const));
  const { value, error } = schema.validate(input, { abortEarly: true, convert: true });
  if (error) throw toConfigError(schema, error, opts.mode, opts.service);
  const parsed = value as Record<string, unknown>;
  return deepFreeze(completeDataEncryptionKeys(Object.fromEntries(keys.map((key) => [key, withNumbered(VARIABLES[key], parsed[VARIABLES[key].name], env)])) as Pick<Config, K>));
}

/** A variable's parsed value completed by its numbered variables, when it has any (ACME_DIRECTORY_URL's). */
function withNumbered(spec: VariableSpec<unknown>, value: unknown, env: NodeJS.ProcessEnv): unknown {
  return spec.withNumbered ? spec.withNumbered(value, env) : value;
}
