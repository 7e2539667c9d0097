// The service processes of the system test (`node services/<name>/dist/main.js`)
// and what a process supervisor (kubelet) does for them: start, watch
// readiness on the ops port, restart 2 s after any exit, and the test's own
// `kill -9`. Every start, kill and exit is logged with its pid; each
// process's output goes to a file of the run.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessExit } from './invariants';

export type ServiceName = 'api' | 'checker' | 'webhook-dispatcher' | 'edge-proxy';

export interface ServiceSpec {
  /** `api-1`, `edge-proxy-2`, … */
  name: string;
  service: ServiceName;
  env: Record<string, string>;
  metricsPort: number;
}

export interface Restart {
  name: string;
  /** The pid killed (or that exited) and the one started after it. */
  oldPid: number;
  newPid: number | null;
  /** When the new process was started, and how long it took to answer /readyz 200 (null while it has not). */
  startedAtMs: number;
  readyAfterMs: number | null;
}

/** One kill -9 of the test, and how long until the process was ready again (through any refused starts). */
export interface Kill {
  name: string;
  pid: number;
  atMs: number;
  /** From the kill until a new process answered /readyz 200 (null while none has). */
  readyAgainAfterMs: number | null;
  /** Starts that exited before they were ready (a dependency was down, a port was taken). */
  refusedStarts: number;
}

interface Running {
  spec: ServiceSpec;
  child: ChildProcess | null;
  /** The current child answered /readyz 200 at least once. */
  ready: boolean;
  killedByTest: boolean;
  restart: Restart | null;
  /** The test's last kill of this process while no new one has been ready since. */
  pendingKill: Kill | null;
  log: WriteStream;
}

const ROOT = join(__dirname, '../..');
export const serviceMain = (service: ServiceName): string => join(ROOT, 'services', service, 'dist', 'main.js');

export class Supervisor {
  readonly exits: ProcessExit[] = [];
  readonly restarts: Restart[] = [];
  readonly kills: Kill[] = [];
  private readonly procs = new Map<string, Running>();
  private stopping = false;

  constructor(
    private readonly logDir: string,
    private readonly log: (line: string) => void,
    private readonly clock: () => number,
    private readonly restartAfterMs = 2_000,
  ) {}

  add(spec: ServiceSpec): void {
    this.procs.set(spec.name, { spec, child: null, ready: false, killedByTest: false, restart: null, pendingKill: null, log: createWriteStream(join(this.logDir, `${spec.name}.log`), { flags: 'a' }) });
  }

  names(): string[] {
    return [...this.procs.keys()];
  }

  pid(name: string): number | null {
    return this.get(name).child?.pid ?? null;
  }

  isReady(name: string): boolean {
    return this.get(name).ready;
  }

  /** Whether the process answers /readyz 200 now. */
  async probeReady(name: string): Promise<boolean> {
    const p = this.get(name);
    if (!p.child || p.child.exitCode !== null || p.child.signalCode !== null) return false;
    return fetch(`http://127.0.0.1:${p.spec.metricsPort}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => {
      void r.body?.cancel();
      return r.status === 200;
    }, () => false);
  }

  /** Starts every process and waits until each answers /readyz 200. */
  async startAll(timeoutMs: number): Promise<void> {
    for (const name of this.procs.keys()) this.spawn(name);
    const deadline = Date.now() + timeoutMs;
    while (![...this.procs.values()].every((p) => p.ready)) {
      if (Date.now() > deadline) {
        const waiting = [...this.procs.values()].filter((p) => !p.ready).map((p) => p.spec.name);
        throw new Error(`not ready within ${timeoutMs} ms: ${waiting.join(', ')} (see ${this.logDir})`);
      }
      await sleep(200);
    }
  }

  /** SIGKILL of the current process; it is started again `restartAfterMs` later. Null when it was not running. */
  kill(name: string): number | null {
    const p = this.get(name);
    const child = p.child;
    if (!child || child.exitCode !== null || child.signalCode !== null || !child.pid) {
      this.log(`kill -9 ${name}: not running (still being restarted), nothing to kill`);
      return null;
    }
    p.killedByTest = true;
    p.pendingKill = { name, pid: child.pid, atMs: this.clock(), readyAgainAfterMs: null, refusedStarts: 0 };
    this.kills.push(p.pendingKill);
    this.log(`kill -9 ${name} pid ${child.pid} (signal SIGKILL)`);
    child.kill('SIGKILL');
    return child.pid;
  }

  /** Sends SIGTERM to every process and waits for them (SIGKILL after `graceMs`); nothing is restarted any more. */
  async stopAll(graceMs: number): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.procs.values()].map(async (p) => {
      const child = p.child;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      await new Promise<void>((resolve) => p.log.end(() => resolve()));
    }));
  }

  private get(name: string): Running {
    const p = this.procs.get(name);
    if (!p) throw new Error(`no process named ${name}`);
    return p;
  }

  private spawn(name: string, after: { oldPid: number } | null = null): void {
    const p = this.get(name);
    const child = spawn(process.execPath, [serviceMain(p.spec.service)], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...p.spec.env, METRICS_PORT: String(p.spec.metricsPort), BIND_ADDRESS: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.child = child;
    p.ready = false;
    p.killedByTest = false;
    const pid = child.pid ?? -1;
    const startedAtMs = this.clock();
    p.log.write(`--- ${new Date().toISOString()} started pid ${pid}\n`);
    let tail = '';
    const keep = (c: Buffer) => {
      p.log.write(c);
      tail = (tail + c.toString()).slice(-2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    p.restart = after ? { name, oldPid: after.oldPid, newPid: pid, startedAtMs, readyAfterMs: null } : null;
    if (p.restart) {
      this.restarts.push(p.restart);
      this.log(`restart ${name}: pid ${pid}`);
    }
    child.once('exit', (code, signal) => {
      const wasReady = p.ready;
      p.ready = false;
      const atMs = this.clock();
      p.log.write(`--- ${new Date().toISOString()} pid ${pid} exited (${signal ?? `code ${code}`})\n`);
      if (this.stopping) return;
      this.exits.push({ name, pid, killedByTest: p.killedByTest, wasReady, code, signal, atMs });
      if (!p.killedByTest && !wasReady && p.pendingKill) p.pendingKill.refusedStarts += 1;
      if (!p.killedByTest) this.log(`${name} pid ${pid} exited by itself with ${signal ?? `code ${code}`}${wasReady ? ' after it had been ready' : ' before it was ready'}; restarting in ${this.restartAfterMs / 1000} s`);
      // A port taken while the process was down: who has it.
      const busy = /EADDRINUSE[^\n]*:(\d+)/.exec(tail)?.[1];
      if (busy) {
        execFile('ss', ['-Htanp', `sport = :${busy}`], (err, stdout) => this.log(`port ${busy} is taken: ${err ? err.message : stdout.trim().replace(/\s+/g, ' ') || 'by nothing now'}`));
      }
      setTimeout(() => {
        if (!this.stopping) this.spawn(name, { oldPid: pid });
      }, this.restartAfterMs);
    });
    void this.watchReadiness(p, child, startedAtMs);
  }

  /** Polls /readyz until the process answers 200 (or exits); logs how long a restart took. */
  private async watchReadiness(p: Running, child: ChildProcess, startedAtMs: number): Promise<void> {
    while (p.child === child && child.exitCode === null && child.signalCode === null && !this.stopping) {
      const ok = await fetch(`http://127.0.0.1:${p.spec.metricsPort}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => {
        void r.body?.cancel();
        return r.status === 200;
      }, () => false);
      if (ok && p.child === child) {
        p.ready = true;
        if (p.restart && p.restart.newPid === child.pid) {
          p.restart.readyAfterMs = this.clock() - startedAtMs;
          const kill = p.pendingKill;
          p.pendingKill = null;
          if (kill) kill.readyAgainAfterMs = this.clock() - kill.atMs;
          const since = kill ? `, ${((kill.readyAgainAfterMs ?? 0) / 1000).toFixed(1)} s after the kill of pid ${kill.pid}${kill.refusedStarts ? ` (${kill.refusedStarts} starts refused meanwhile)` : ''}` : '';
          this.log(`${p.spec.name} pid ${child.pid} ready ${(p.restart.readyAfterMs / 1000).toFixed(1)} s after its start${since}`);
        }
        return;
      }
      await sleep(200);
    }
  }
}
