import Joi from 'joi';
import type { Mode } from './config.types';
import { VARIABLES, type VariableSpec } from './config-variables';

/** What `.meta()` carries on every key, for the documentation and the error messages. */
export interface VariableMeta {
  readonly default: string;
  readonly secret: boolean;
}

/**
 * The joi schema of the environment for one mode: keys are variable names,
 * values arrive as text and leave parsed (ports as numbers, durations in ms, …).
 * An empty value counts as unset; unknown variables pass through untouched.
 */
export function buildConfigSchema(mode: Mode): Joi.ObjectSchema {
  const specs: readonly VariableSpec<Joi.BasicType>[] = Object.values(VARIABLES);
  return Joi.object(Object.fromEntries(specs.map((spec) => [spec.name, variableSchema(spec, mode)]))).unknown(true);
}

function variableSchema(spec: VariableSpec<Joi.BasicType>, mode: Mode): Joi.Schema {
  const meta: VariableMeta = { default: docDefault(spec), secret: spec.secret === true };
  const schema = Joi.string()
    .empty('')
    .custom((text: string) => spec.parse(text))
    .description(spec.description)
    .meta(meta);
  if (spec.requiredIn?.includes(mode)) return schema.required();
  const text = typeof spec.default === 'object' ? spec.default[mode] : spec.default;
  return schema.default(text === undefined ? null : spec.parse(text));
}

function docDefault(spec: VariableSpec<Joi.BasicType>): string {
  if (spec.docDefault !== undefined) return spec.docDefault;
  if (typeof spec.default === 'string') return `\`${spec.default}\``;
  return 'unset';
}
