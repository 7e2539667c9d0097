// Ports for the processes the system test restarts on the same address (the
// services, PostgreSQL, the RabbitMQ node): below the kernel's ephemeral range
// (32768-60999 here), so that while one of them is down its port cannot be
// handed to anything else, whether as a client's source port or to another
// suite's `listen(0)` (test/support/free-port.ts): suites that run at the same
// time on this machine start servers on ports from that range.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FIRST = 20_000;
const given = new Set<number>();

/** The start of the ephemeral range (32768 when it cannot be read). */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > FIRST + 1000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port free now, below the ephemeral range, not given out before by this process. */
export async function servicePort(): Promise<number> {
  const last = ephemeralStart() - 1;
  for (let tries = 0; tries < 200; tries++) {
    const port = FIRST + Math.floor(Math.random() * (last - FIRST));
    if (given.has(port) || !(await bindable(port))) continue;
    given.add(port);
    return port;
  }
  throw new Error(`no free port between ${FIRST} and ${last}`);
}
