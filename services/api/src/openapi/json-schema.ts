// A joi schema as OpenAPI 3.1 (JSON Schema): joi-to-json's answer, completed
// where the API's schemas go past it:
//   - free keys named by a key schema, `.pattern(keySchema, value)` (metadata):
//     propertyNames and additionalProperties, where joi-to-json says no key is allowed;
//   - an object's key count, `.min()`, `.max()`: minProperties, maxProperties;
//   - the JSON Schema keywords a schema carries in `.meta()`, for rules joi's
//     own cannot say (lengths in code points).
import type Joi from 'joi';
import OpenApiParser from 'joi-to-json/lib/parsers/open-api-3.1';

type JsonObject = Record<string, unknown>;

/** Keywords a joi schema may carry in `.meta()` for the document. */
const META_KEYWORDS = ['minLength', 'maxLength'] as const;

interface ObjectPattern {
  /** Absent when the keys are matched by a regex, which joi-to-json renders itself. */
  schema?: Joi.Description;
  rule: Joi.Description;
}

interface Rule {
  name: string;
  args?: { limit?: number };
}

class ApiSchemaParser extends OpenApiParser {
  protected override _setObjectProperties(schema: JsonObject, spec: Joi.Description, definitions: JsonObject, level: number): void {
    super._setObjectProperties(schema, spec, definitions, level);
    if (schema.type !== 'object') return;
    // A joi Description types its entries `any`: these are the shapes joi's describe() gives.
    const patterns: ObjectPattern[] = spec.patterns ?? [];
    const rules: Rule[] = spec.rules ?? [];
    for (const pattern of patterns) {
      if (!pattern.schema) continue;
      schema.propertyNames = this.parse(pattern.schema, definitions, level + 1);
      schema.additionalProperties = this.parse(pattern.rule, definitions, level + 1);
    }
    for (const rule of rules) {
      const limit = rule.args?.limit;
      if (limit === undefined) continue;
      if (rule.name === 'min' || rule.name === 'length') schema.minProperties = limit;
      if (rule.name === 'max' || rule.name === 'length') schema.maxProperties = limit;
    }
  }

  protected override _setMetaProperties(schema: JsonObject, spec: Joi.Description): void {
    super._setMetaProperties(schema, spec);
    const metas: JsonObject[] = spec.metas ?? [];
    for (const meta of metas) {
      for (const keyword of META_KEYWORDS) if (keyword in meta) schema[keyword] = meta[keyword];
    }
  }
}

export function toJsonSchema(joi: Joi.Schema): JsonObject {
  return new ApiSchemaParser().parse(joi.describe());
}
