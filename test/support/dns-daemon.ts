// A DNS server of the tests (named, unbound) run in the foreground with its
// files in `dir`: its output kept for error messages, ready once `probe`
// (a question asked of it on 127.0.0.1:`port`) is answered, stopped with
// SIGTERM and its directory removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as dns } from 'node:dns';
import { rmSync } from 'node:fs';
import { eventually } from './eventually';

const MAX_OUTPUT = 64 * 1024;

export interface DnsDaemonOptions {
  name: string;
  command: string;
  args: string[];
  dir: string;
  port: number;
  /** A question it answers once it serves. */
  probe(resolver: dns.Resolver): Promise<unknown>;
}

/** Resolves with its stop once it answers `probe`; stops it and rejects with its output when it does not within 15 s. */
export async function startDnsDaemon(opts: DnsDaemonOptions): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(opts.command, opts.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(opts.dir, { recursive: true, force: true });
  };
  const resolver = new dns.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${opts.port}`]);
  let lastError: unknown = null;
  try {
    await eventually(`${opts.name} to answer`, async () => {
      if (child.exitCode !== null) throw new Error(`${opts.name} exited with ${child.exitCode}:\n${output}`);
      return opts.probe(resolver).then(() => true, (err: unknown) => {
        lastError = err;
        return false;
      });
    }, { timeoutMs: 15_000, intervalMs: 100, explain: () => `${String(lastError)}\n${output}` });
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}
