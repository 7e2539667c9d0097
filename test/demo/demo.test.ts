// `make demo DEMO_EXIT=1` without make: the built demo (scripts/demo) runs the
// whole flow on its own free loopback ports (its DNS server, the all-in-one
// service, an origin, a webhook receiver), exits 0, and its last lines say
// that the hostname became ready, was served through the edge over HTTPS and
// HTTP/2 with an assertion the origin verified, and that the domain.ready
// webhook arrived with a valid signature. Everything it started is gone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../support/eventually';

const ROOT = path.join(__dirname, '../..');
const DEMO = path.join(ROOT, 'scripts/demo/dist/main.js');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

function runDemo(): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEMO], { cwd: ROOT, env: { ...process.env, DEMO_EXIT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The demo bounds each of its waits (90 s for ready); this only keeps a stuck run from holding the suite.
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

test('the demo reaches ready, is served over HTTPS and HTTP/2 with a verified assertion, verifies the webhook, and exits 0', async () => {
  // make build builds it (npx tsc -b tsconfig.build.json scripts/demo); a build still running elsewhere is waited for.
  await eventually(`${DEMO} to exist (build first: make build)`, () => existsSync(DEMO), { timeoutMs: 120_000, intervalMs: 1000 });
  const run = await runDemo();
  if (run.code !== 0) throw new Error(`the demo exited with ${run.code ?? run.signal}:\n${run.output}`);

  const lines = run.output.trimEnd().split('\n');
  expect(lines.slice(-4)).toEqual([
    'Result',
    expect.stringMatching(/^ {2}✔ shop\.demo-customer\.test is ready: ownership, routing, certificate and origin passing \(\d+\.\d s after the records were published\)$/),
    expect.stringMatching(/^ {2}✔ served through the edge over HTTPS \(HTTP\/1\.1\) and HTTP\/2; the origin verified the assertion \(kid ak_[0-9a-f]{16}, workspace ws_42\)$/),
    expect.stringMatching(/^ {2}✔ webhook domain\.ready received and its signature verified \(event [0-9a-f-]{36}\)$/),
  ]);
  // The origin's answers, as curl printed them, over each protocol.
  expect(run.output).toMatch(/It verified the edge's X-Custom-Domain-Assertion[\s\S]*?HTTP\/1\.1 200/);
  expect(run.output).toMatch(/It verified the edge's X-Custom-Domain-Assertion[\s\S]*?HTTP\/2 200/);
  expect(run.output).toMatch(/\[webhook receiver\] domain\.ready for shop\.demo-customer\.test \(status ready\): signature verified/);

  // Stopped and cleaned up: the service's API no longer answers, the work directory is gone.
  const api = /API (http:\/\/127\.0\.0\.1:\d+), edge HTTPS/.exec(run.output)?.[1];
  const workDir = /Work directory: (\S+)/.exec(run.output)?.[1];
  expect(api).toBeDefined();
  expect(workDir).toBeDefined();
  await expect(fetch(`${api}/v1/openapi.json`)).rejects.toThrow();
  expect(existsSync(workDir as string)).toBe(false);
});
