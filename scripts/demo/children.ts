// The processes the demo starts: free loopback ports for them, and a stop
// that waits for each to exit (SIGTERM, then SIGKILL after a grace period).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port free at the time of asking. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Told when a child exits before stop() was called. */
export type UnexpectedExit = (child: Child) => void;

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** Set once it exited: how. */
  exit: string | null;
  /** What to show about it when it failed (the end of its log). */
  explain?: () => string;
  /** Stops it (SIGTERM, SIGKILL after `graceMs`) and waits for the exit. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts a child in a process group of its own, so that Ctrl-C in the
 * terminal reaches the demo alone and the demo stops its children in order.
 * `onUnexpectedExit` is called if it exits before stop() is called.
 */
export function startChild(name: string, command: string, args: string[], options: SpawnOptions, onUnexpectedExit: UnexpectedExit): Child {
  const proc = spawn(command, args, { ...options, detached: true });
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', (code, signal) => {
      child.exit = signal ? `killed by ${signal}` : `exit code ${code}`;
      if (!stopping) onUnexpectedExit(child);
      resolve();
    });
    proc.once('error', (err) => {
      child.exit = `could not start: ${err.message}`;
      if (!stopping) onUnexpectedExit(child);
      resolve();
    });
  });
  const child: Child = {
    name,
    process: proc,
    exit: null,
    async stop(graceMs) {
      stopping = true;
      if (child.exit !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  // Whatever ends the demo, no child outlives it.
  process.once('exit', () => {
    if (child.exit === null) proc.kill('SIGKILL');
  });
  return child;
}

/** Polls `probe` every `intervalMs` until it returns a value other than undefined; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, timeoutMs: number, intervalMs: number, probe: () => Promise<T | undefined>, explain?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`${what} did not happen within ${Math.round(timeoutMs / 1000)} s${explain ? `: ${explain()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
