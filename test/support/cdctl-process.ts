// What the tests that run the built cdctl share: one child process, its exit
// code and its whole output, with only PATH and the environment given.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const CDCTL = join(__dirname, '../../services/cli/bin/cdctl.js');

export interface CdctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cdctl <args>` with PATH and `env` alone, in `cwd` when given. */
export function runCdctl(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CdctlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CDCTL, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
