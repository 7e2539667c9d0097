import Joi from 'joi';
import { toJsonSchema } from './json-schema';

describe('toJsonSchema', () => {
  it('gives an object keyed by a key schema its key and value schemas and its key count', () => {
    const keys = Joi.string().meta({ minLength: 1, maxLength: 64 });
    const values = Joi.alternatives().try(Joi.string().allow('').meta({ minLength: 0, maxLength: 512 }), Joi.number(), Joi.valid(null));
    expect(toJsonSchema(Joi.object().pattern(keys, values).min(1).max(32))).toEqual({
      type: 'object',
      properties: {},
      propertyNames: { type: 'string', minLength: 1, maxLength: 64 },
      additionalProperties: { anyOf: [{ type: 'string', minLength: 0, maxLength: 512 }, { type: 'number' }, { const: null }] },
      minProperties: 1,
      maxProperties: 32,
    });
  });

  it('leaves what joi-to-json renders itself as it was', () => {
    expect(toJsonSchema(Joi.object({ a: Joi.string().min(2).max(3).required(), b: Joi.number().integer() }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string', minLength: 2, maxLength: 3 }, b: { type: 'integer' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(toJsonSchema(Joi.object().pattern(/^x-/, Joi.string()))).toMatchObject({ patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false });
  });
});
