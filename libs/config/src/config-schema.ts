import Joi from 'joi';
import type { Mode, SplitServiceName } from './config.types';
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
 * With a split-mode service named, a variable other services need is optional.
 */
export function buildConfigSchema(mode: Mode, service?: SplitServiceName): Joi.ObjectSchema {
  const specs: readonly VariableSpec<Joi.BasicType>[] = Object.values(VARIABLES);
  return Joi.object(Object.fromEntries(specs.map((spec) => [spec.name, variableSchema(spec, mode, service)]))).unknown(true);
}

/** A variable given a value: an unset one arrives defaulted to null (joi validates it first, as this refers to it). */
const SET = Joi.any().exist().invalid(null);

function isRequired(spec: VariableSpec<Joi.BasicType>, mode: Mode, service: SplitServiceName | undefined): boolean {
  if (!spec.requiredIn?.includes(mode)) return false;
  return mode !== 'split' || service === undefined || spec.requiredBy === undefined || spec.requiredBy.includes(service);
}

function variableSchema(spec: VariableSpec<Joi.BasicType>, mode: Mode, service: SplitServiceName | undefined): Joi.Schema {
  const meta: VariableMeta = { default: docDefault(spec), secret: spec.secret === true };
  const schema = Joi.string()
    .empty('')
    .custom((text: string) => spec.parse(text))
    .description(spec.description)
    .meta(meta);
  if (isRequired(spec, mode, service)) {
    return spec.unlessSet === undefined ? schema.required() : schema.when(spec.unlessSet, { is: SET, then: Joi.forbidden(), otherwise: Joi.required() });
  }
  const text = typeof spec.default === 'object' ? spec.default[mode] : spec.default;
  return schema.default(text === undefined ? null : spec.parse(text));
}

function docDefault(spec: VariableSpec<Joi.BasicType>): string {
  if (spec.docDefault !== undefined) return spec.docDefault;
  if (typeof spec.default === 'string') return `\`${spec.default}\``;
  return 'unset';
}
