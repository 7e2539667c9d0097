import Joi from 'joi';
import { ConfigError } from './config-error';
import { buildConfigSchema, type VariableMeta } from './config-schema';
import type { Config, Mode } from './config.types';
import { VARIABLES } from './config-variables';
import { deepFreeze } from './deep-freeze';
import { InvalidValueError } from './invalid-value';
import { checkPortConflicts } from './port-conflicts';

export interface LoadConfigOptions {
  readonly mode: Mode;
  /** Defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

const SHOWN_VALUE_MAX = 80;

/** Validates the environment (no file or network access) and returns the deep-frozen configuration. Throws ConfigError. */
export function loadConfig(opts: LoadConfigOptions): Config {
  const env = opts.env ?? process.env;
  const input = Object.fromEntries(
    Object.values(VARIABLES).map((spec) => [spec.name, env[spec.name]?.trim() || undefined] as const),
  );
  const schema = buildConfigSchema(opts.mode);
  const { value, error } = schema.validate(input, { abortEarly: true, convert: true });
  if (error) throw toConfigError(schema, error, opts.mode);
  // The schema has one key per entry of VARIABLES, each parsed by that entry's typed parser.
  const parsed = value as Record<string, unknown>;
  const config = { ...Object.fromEntries(Object.entries(VARIABLES).map(([key, spec]) => [key, parsed[spec.name]])), mode: opts.mode } as Config;
  checkPortConflicts(config);
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

function toConfigError(schema: Joi.ObjectSchema, error: Joi.ValidationError, mode: Mode): ConfigError {
  const detail = error.details[0];
  const variable = String(detail?.path[0] ?? 'environment');
  if (detail?.type === 'any.required') {
    const why = mode === 'split' ? 'in split mode' : '(all-in-one start-up generates it into the data directory)';
    return new ConfigError(variable, `is required ${why}`);
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
 * DATABASE_URL alone, validated and defaulted exactly as in `loadConfig`.
 */
export function loadDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const spec = VARIABLES.databaseUrl;
  const text = env[spec.name]?.trim() || (spec.default as string);
  try {
    return spec.parse(text);
  } catch (error) {
    const problem = error instanceof InvalidValueError ? error.message : 'is invalid';
    throw new ConfigError(spec.name, `${problem} (got ${showValue(text)})`);
  }
}

/**
 * For host-side commands that need a few settings (`cdctl doctor`): only the
 * named variables, validated and defaulted exactly as `loadConfig` does in `mode`.
 */
export function loadConfigSubset<K extends Exclude<keyof Config, 'mode'>>(keys: readonly K[], opts: LoadConfigOptions): Pick<Config, K> {
  const env = opts.env ?? process.env;
  const full = buildConfigSchema(opts.mode);
  const names = keys.map((key) => VARIABLES[key].name);
  const schema = Joi.object(Object.fromEntries(names.map((name) => [name, full.extract(name)])));
  const input = Object.fromEntries(names.map((name) => [name, env[name]?.trim() || undefined] as const));
  const { value, error } = schema.validate(input, { abortEarly: true, convert: true });
  if (error) throw toConfigError(schema, error, opts.mode);
  const parsed = value as Record<string, unknown>;
  return deepFreeze(Object.fromEntries(keys.map((key) => [key, parsed[VARIABLES[key].name]])) as Pick<Config, K>);
}
