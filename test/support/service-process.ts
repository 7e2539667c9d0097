// What the tests that spawn a built service (`node services/<name>/dist/main.js`) share.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { eventually } from './eventually';

const BUILD_WAIT_MS = 120_000;

/** `make test` builds first; while a build is still running elsewhere, wait (up to BUILD_WAIT_MS) for `main` instead of failing. */
export async function waitForBuild(main: string): Promise<void> {
  await eventually(`${main} to exist (build first: npx tsc -b tsconfig.build.json)`, () => existsSync(main), { timeoutMs: BUILD_WAIT_MS, intervalMs: 1000 });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `signal` (SIGTERM), then SIGKILL if the process has not exited within `graceMs`; how it exited. */
export async function stopProcess(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, by) => resolve({ code, signal: by })));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const exit = await exited;
  clearTimeout(timer);
  return exit;
}
