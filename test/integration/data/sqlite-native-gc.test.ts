// The installed better-sqlite3 survives V8 collecting its statements on this Node.js.
// Built against the headers of Node.js 24.19 or later, its ObjectWrap destructor
// aborts the process ("Assertion failed: (env) != nullptr") when a collection runs
// outside any context; the Makefile builds it against NODE_HEADERS_VERSION's. The
// churn below hits that abort within seconds, nearly every run.
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const CHURN = path.join(ROOT, 'test/support/sqlite-statement-churn.js');

function churn(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHURN], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr: stderr.slice(0, 2000) }));
  });
}

it('better-sqlite3 outlives the collection of its prepared statements, twice 600,000', async () => {
  for (let run = 0; run < 2; run++) {
    expect(await churn()).toEqual({ code: 0, signal: null, stdout: 'prepared 600000\n', stderr: '' });
  }
}, 120_000);
