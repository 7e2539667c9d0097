import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type JsonObject = Record<string, unknown>;

/**
 * Checks answers against the served /v1/openapi.json: for the operation that
 * matches method and path, the body must match the schema of its status.
 */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly operations: Array<{ method: string; pattern: RegExp; template: string; op: JsonObject }> = [];

  constructor(readonly document: JsonObject) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    const paths = document.paths as Record<string, Record<string, JsonObject>>;
    for (const [template, methods] of Object.entries(paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(methods)) this.operations.push({ method, pattern, template, op });
    }
  }

  /** Throws with the schema errors when the answer does not match the document. */
  check(method: string, url: string, status: number, body: unknown, contentType: string | null): void {
    const path = url.split('?')[0] as string;
    const entry = this.operations.find((o) => o.method === method.toLowerCase() && o.pattern.test(path));
    if (!entry) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    const responses = entry.op.responses as Record<string, JsonObject>;
    const response = responses[String(status)];
    if (!response) throw new Error(`${method} ${entry.template}: status ${status} is not documented`);
    const content = response.content as Record<string, { schema: JsonObject }> | undefined;
    if (!content) {
      if (body !== undefined && body !== '') throw new Error(`${method} ${entry.template} ${status}: documented without a body, got one`);
      return;
    }
    if (!contentType?.startsWith('application/json')) throw new Error(`${method} ${entry.template} ${status}: expected JSON, got ${contentType}`);
    const key = `${method} ${entry.template} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(content['application/json']?.schema ?? {});
      this.cache.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(`${key}: answer does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    }
  }
}
