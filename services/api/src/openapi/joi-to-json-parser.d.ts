// The joi-to-json parser the OpenAPI document extends (json-schema.ts); the
// package types only its entry point.
declare module 'joi-to-json/lib/parsers/open-api-3.1' {
  import type { Description } from 'joi';

  class JoiOpenApiThreePointOneSchemaParser {
    parse(spec: Description, definitions?: Record<string, unknown>, level?: number): Record<string, unknown>;
    protected _setObjectProperties(schema: Record<string, unknown>, spec: Description, definitions: Record<string, unknown>, level: number): void;
    protected _setMetaProperties(schema: Record<string, unknown>, spec: Description): void;
  }
  export = JoiOpenApiThreePointOneSchemaParser;
}
