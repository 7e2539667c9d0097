/**
 * Turns a request path into the OpenAPI template it matches (`/v1/domains/{domain_id}`),
 * so metric labels stay bounded whatever clients send. Unknown paths give null.
 */
export function routeMatcher(templates: readonly string[]): (path: string) => string | null {
  // Static templates first, so `/v1/domains/export` would win over `/v1/domains/{id}`.
  const compiled = [...new Set(templates)]
    .sort((a, b) => paramCount(a) - paramCount(b))
    .map((template) => ({ template, pattern: new RegExp(`^${template.split(/\{[^}/]+\}/).map(escapeRegExp).join('[^/]+')}/?$`) }));
  return (path) => compiled.find((c) => c.pattern.test(path))?.template ?? null;
}

function paramCount(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
}
