// A PostgreSQL cluster of the test's own, in a temporary directory, on a free
// loopback port and a private socket directory, with trust authentication: it
// can be stopped and started again without touching the machine's PostgreSQL,
// which other suites use at the same time. initdb and the server refuse to run
// as root, so under root they run as the `postgres` OS user.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/free-port';

const run = promisify(execFile);
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  readonly port: number;
  readonly dataDir: string;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  /** The same database through the private socket directory (reachable with `tcp: false` too). */
  readonly socketUrl: string;
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash as far as clients can tell (no checkpoint, every connection cut). */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port and data; `tcp: false`: on the socket only, so TCP clients are still refused. */
  start(opts?: { tcp?: boolean }): Promise<void>;
  /** `pg_ctl restart -m <mode>` (the options of the last start are kept): with `immediate`, a crash and a recovery. */
  restart(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops it (if running) and removes its directory. Safe to call more than once. */
  remove(): Promise<void>;
}

/** Commands as the `postgres` OS user when this process is root, else as this user. */
function asOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function ownerIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** `port`: the port to listen on (default: a free one). */
export async function startPrivatePostgres(opts: { port?: number } = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-soak-pg-'));
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 'socket');
  const logFile = join(dir, 'server.log');
  mkdirSync(socketDir);
  const owner = ownerIds();
  if (owner) for (const path of [dir, socketDir]) chownSync(path, owner.uid, owner.gid);
  const port = opts.port ?? (await freePort());

  const pgCtl = (args: string[], timeoutMs = 90_000) => {
    const [command, argv] = asOwner(join(BIN, 'pg_ctl'), args);
    return run(command, argv, { timeout: timeoutMs });
  };
  let removed = false;
  /** Whatever state it is in (a start that timed out may have left a server running). */
  const stopNow = () => {
    const [command, argv] = asOwner(join(BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    try {
      execFileSync(command, argv, { stdio: 'ignore', timeout: 30_000 });
    } catch {
      // Not running.
    }
  };
  const cluster: PrivatePostgres = {
    port,
    dataDir,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgres://postgres@localhost:${port}/postgres?host=${encodeURIComponent(socketDir)}`,
    async start({ tcp = true } = {}) {
      // Loopback TCP (or none) and a private socket directory; no fsync: the data is thrown away.
      const listen = tcp ? '127.0.0.1' : "''";
      const options = `-c listen_addresses=${listen} -p ${port} -k ${socketDir} -c fsync=off -c full_page_writes=off`;
      await pgCtl(['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
    },
    async stop(mode = 'immediate') {
      await pgCtl(['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    async restart(mode = 'immediate') {
      // The server's output goes to the log file: pg_ctl would otherwise hand it our pipe and never be done.
      await pgCtl(['-D', dataDir, '-l', logFile, '-m', mode, '-w', '-t', '60', 'restart']);
    },
    async remove() {
      if (removed) return;
      removed = true;
      stopNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    const [initCommand, initArgs] = asOwner(join(BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await run(initCommand, initArgs, { timeout: 120_000 });
    await cluster.start();
  } catch (err) {
    await cluster.remove();
    throw err;
  }
  return cluster;
}
