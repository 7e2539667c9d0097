import type Joi from 'joi';
import { validationError, type ValidationIssue } from '@cds/core';

export type InputLocation = ValidationIssue['location'];

// Bodies are strict (no type coercion: "25" is not a number); queries and headers
// arrive as strings, so they are converted.
const OPTIONS: Record<InputLocation, Joi.ValidationOptions> = {
  body: { abortEarly: false, convert: false, allowUnknown: false },
  query: { abortEarly: false, convert: true, allowUnknown: true, stripUnknown: true },
  header: { abortEarly: false, convert: true, allowUnknown: true, stripUnknown: true },
  path: { abortEarly: false, convert: true, allowUnknown: false },
};

/**
 * Own `__proto__` keys (JSON.parse makes them) anywhere in a body: Joi drops
 * them silently, so they would pass as if absent instead of being unknown fields.
 */
function protoKeyIssues(value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Array<[unknown, string[]]> = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string[]];
    if (v === null || typeof v !== 'object') continue;
    for (const [key, child] of Object.entries(v)) {
      const childPath = [...path, key];
      if (key === '__proto__') issues.push({ location: 'body', field: childPath.join('.'), message: "'__proto__' is not allowed", type: 'object.unknown' });
      else stack.push([child, childPath]);
    }
  }
  return issues;
}

/** Known query values with U+0000 (`%00`): no stored value holds one, and PostgreSQL refuses them as parameters. */
function nulIssues(query: unknown): ValidationIssue[] {
  if (query === null || typeof query !== 'object') return [];
  return Object.entries(query)
    .filter(([, v]) => (Array.isArray(v) ? v : [v]).some((s) => typeof s === 'string' && s.includes('\u0000')))
    .map(([field]) => ({ location: 'query', field, message: 'must not contain the NUL character', type: 'string.nul' }));
}

/**
 * Validates one part of a request; throws `validation_error` listing every
 * problem. The answer is typed by the schema (`Joi.object<T, true>`), defaults
 * applied: what passes here is a T.
 */
export function parseInput<T>(schema: Joi.ObjectSchema<T>, value: unknown, location: InputLocation): T {
  const result = schema.validate(value, OPTIONS[location]);
  const errors: ValidationIssue[] = (result.error?.details ?? []).map((d) => ({
    location,
    field: d.path.map(String).join('.'),
    message: d.message.replace(/"/g, "'"),
    type: d.type,
  }));
  if (location === 'body') errors.push(...protoKeyIssues(value));
  // Unknown parameters are stripped from the result (and ignored), so only known ones are looked at.
  if (location === 'query') errors.push(...nulIssues(result.value));
  if (result.error || errors.length > 0) throw validationError(errors);
  return result.value;
}

/** A body the route may go without: absent (no JSON body sent) it is undefined, as joi leaves it; present it must pass. */
export function parseOptionalBody<T>(schema: Joi.ObjectSchema<T>, value: unknown): T | undefined {
  return value === undefined ? undefined : parseInput(schema, value, 'body');
}
