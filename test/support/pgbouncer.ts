// A PgBouncer of the test's own, in transaction pooling mode, in front of the
// machine's PostgreSQL: on a free loopback port, with its files in a temporary
// directory. PgBouncer refuses to run as root, so under root it runs as the
// `postgres` OS user. Debian's `pgbouncer` package (scripts/ensure-services.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';
import { freePort } from './free-port';

const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  readonly port: number;
  /** `url` (a database on the machine's PostgreSQL) through this PgBouncer. */
  through(url: string): string;
  log(): string;
  stop(): Promise<void>;
}

/** `serverConnections`: server connections per database and user, shared by every client (default_pool_size). */
export async function startPgBouncer(opts: { serverConnections: number }): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: scripts/ensure-services.sh installs Debian's pgbouncer`);
  const dir = mkdtempSync(join(tmpdir(), 'cds-pgbouncer-'));
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), [
    '[databases]',
    '* = host=127.0.0.1 port=5432',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${opts.serverConnections}`,
    'max_client_conn = 200',
    // pg sends the services' session settings as the `options` startup parameter, which PgBouncer cannot pass on.
    'ignore_startup_parameters = options',
    `logfile = ${logFile}`,
    '',
  ].join('\n'));
  const root = process.getuid?.() === 0;
  if (root) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), id('-u'), id('-g'));
  }
  const [command, args] = root ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, join(dir, 'pgbouncer.ini')]] : [PGBOUNCER, [join(dir, 'pgbouncer.ini')]];
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const log = () => `${output}${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually('PgBouncer to listen', () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${log()}`);
      return new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () => { socket.destroy(); resolve(true); });
        socket.on('error', () => resolve(false));
      });
    }, { timeoutMs: 20_000, intervalMs: 100, explain: log });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port,
    through: (url) => {
      const parsed = new URL(url);
      parsed.port = String(port);
      return parsed.toString();
    },
    log,
    stop,
  };
}
