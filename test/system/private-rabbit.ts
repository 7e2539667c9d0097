// A RabbitMQ node of the test's own: its own node name, AMQP and distribution
// ports, configuration, plugins file (none), database and log directory, so it
// can really be stopped and started again without touching the machine's
// broker, which other suites use at the same time. It boots in about 6 s on
// these machines. Under root it runs as the `rabbitmq` OS user (whose Erlang
// cookie rabbitmqctl uses too); `rabbitmqctl -n <node>` manages it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { servicePort } from './service-port';

const run = promisify(execFile);
const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const BOOT_TIMEOUT_MS = 60_000;

export interface PrivateRabbit {
  readonly node: string;
  /** How long the first start took until the AMQP port accepted connections. */
  readonly bootMs: number;
  readonly port: number;
  /** amqp://guest:guest@127.0.0.1:<port>/<vhost> */
  readonly url: string;
  readonly vhost: string;
  /** Stops the node (`rabbitmqctl stop`): every connection is cut and the port closes. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once the AMQP port accepts connections. */
  start(): Promise<void>;
  /** `rabbitmqctl -n <node> …` */
  ctl(...args: string[]): Promise<string>;
  /** Every queue of the vhost with its ready messages. */
  queues(): Promise<Array<{ queue: string; messages: number }>>;
  /** The node's own output (boot banner, crashes). */
  output(): string;
  /** Stops it if running and removes its directory. Safe to call more than once. */
  remove(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startPrivateRabbit(): Promise<PrivateRabbit> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-system-rabbit-'));
  const [port, distPort] = [await servicePort(), await servicePort()];
  const node = `cds-system-${randomBytes(4).toString('hex')}@localhost`;
  const vhost = 'cds-system';
  writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${port}\nloopback_users = none\n`);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  // The machine's rabbitmq-env.conf names its node: this one reads an empty file instead.
  writeFileSync(join(dir, 'rabbitmq-env.conf'), '');
  const root = process.getuid?.() === 0;
  if (root) {
    const id = async (flag: string) => Number((await run('id', [flag, 'rabbitmq'])).stdout.trim());
    const [uid, gid] = [await id('-u'), await id('-g')];
    chownSync(dir, uid, gid);
    for (const f of ['rabbitmq.conf', 'enabled_plugins', 'rabbitmq-env.conf']) chownSync(join(dir, f), uid, gid);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/var/lib/rabbitmq',
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
  let output = '';
  let child: ChildProcess | null = null;
  let removed = false;

  const ctl = async (...args: string[]): Promise<string> => (await run('rabbitmqctl', ['-n', node, ...args], { timeout: 30_000 })).stdout;

  let bootMs = 0;
  const rabbit: PrivateRabbit = {
    node, port, vhost,
    get bootMs() {
      return bootMs;
    },
    url: `amqp://guest:guest@127.0.0.1:${port}/${encodeURIComponent(vhost)}`,
    ctl,
    output: () => output,
    async start() {
      const [command, args] = root ? ['runuser', ['-u', 'rabbitmq', '--', SERVER]] : [SERVER, []];
      const started = spawn(command, args as string[], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      started.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      started.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      const deadline = Date.now() + BOOT_TIMEOUT_MS;
      while (!(await portOpen(port))) {
        if (started.exitCode !== null) throw new Error(`the RabbitMQ node exited with ${started.exitCode}:\n${output.slice(-3000)}`);
        if (Date.now() > deadline) throw new Error(`the RabbitMQ node did not open port ${port} within ${BOOT_TIMEOUT_MS} ms:\n${output.slice(-3000)}`);
        await sleep(100);
      }
    },
    async stop() {
      const running = child;
      await ctl('stop');
      if (running && running.exitCode === null && running.signalCode === null) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000);
          running.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      child = null;
    },
    async queues() {
      const text = await ctl('list_queues', '-p', vhost, '--quiet', '--no-table-headers', 'name', 'messages');
      return text.split('\n').map((line) => line.trim().split(/\s+/)).filter((cells) => cells.length === 2 && cells[0] !== '')
        .map(([queue, messages]) => ({ queue: queue as string, messages: Number(messages) }));
    },
    async remove() {
      if (removed) return;
      removed = true;
      if (child) await ctl('stop').catch(() => child?.kill('SIGKILL'));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    const started = Date.now();
    await rabbit.start();
    bootMs = Date.now() - started;
    await ctl('await_startup');
    await ctl('add_vhost', vhost);
    await ctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*');
  } catch (err) {
    await rabbit.remove();
    throw err;
  }
  return rabbit;
}
