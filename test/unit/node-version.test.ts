// One Node.js major for everything: the Makefile's (what make run/test fetch and
// run), package.json's "engines" (and the lock file's copy), the typed client's,
// and both stages of the image. A bump that misses one fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

function makeVariable(name: string): string {
  const value = new RegExp(`^${name} := (\\S+)$`, 'm').exec(read('Makefile'))?.[1];
  if (value === undefined) throw new Error(`the Makefile sets no ${name}`);
  return value;
}

describe('the Node.js version', () => {
  const major = makeVariable('NODE_MAJOR');

  it('is one major in the Makefile, engines, the lock file and the image (the typed client: every maintained LTS)', () => {
    expect(major).toMatch(/^\d+$/);
    expect(makeVariable('NODE_VERSION').split('.')[0]).toBe(major);
    const engines = `>=${major}`;
    expect((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node).toBe(engines);
    // The typed client runs in the applications' own processes: every maintained LTS, 22 included.
    const clientEngines = '>=22';
    expect((JSON.parse(read('clients/typescript/package.json')) as { engines: { node: string } }).engines.node).toBe(clientEngines);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
    expect(lock.packages['']?.engines?.node).toBe(engines);
    expect(lock.packages['clients/typescript']?.engines?.node).toBe(clientEngines);
    expect([...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual([`node:${major}-bookworm-slim`, `node:${major}-bookworm-slim`]);
  });

  it('has its native modules built against the same headers by make and the image', () => {
    const headers = makeVariable('NODE_HEADERS_VERSION');
    expect(headers.split('.')[0]).toBe(major);
    expect(read('Dockerfile')).toContain(`RUN bash scripts/install-node.sh --headers ${headers} /opt/node-headers`);
    expect(read('Dockerfile')).toMatch(/^ENV npm_config_nodedir=\/opt\/node-headers npm_config_build_from_source=better-sqlite3$/m);
    expect(read('Makefile')).toMatch(/^export npm_config_build_from_source := better-sqlite3$/m);
  });

  it('is the one the README asks for', () => {
    expect(read('README.md')).toContain(`Node.js ${major}`);
    expect(read('README.md')).not.toMatch(new RegExp(`Node\\.js (?!${major}\\b)\\d+`));
  });
});
