// EDGE_MAX_CONNECTIONS (DECISIONS §5) caps open client connections of the
// edge process, both listeners together: past it a new connection is closed at
// once; when one closes, the next is served again.
import type net from 'node:net';
import type tls from 'node:tls';
import type { DomainRow } from '@cds/data';
import type { EdgeObserver } from '@cds/edge-proxy';
import { eventually } from '../../support/eventually';
import { startEdgeFixture, type EdgeFixture } from './edge-fixture';
import { closedBy, connectWithHeader, http1Over, tlsWithHeader } from './proxy-client';

const MAX = 3;

let f: EdgeFixture;
let domain: DomainRow;
const refusals: string[] = [];
const observer: EdgeObserver = {
  answered: () => undefined,
  cacheLookup: () => undefined,
  limited: () => undefined,
  controlPlane: () => undefined,
  connectionRefused: (reason) => refusals.push(reason),
};

beforeAll(async () => {
  f = await startEdgeFixture({ observer, maxConnections: MAX });
  domain = await f.addDomain((await f.addApplication()).id);
});
afterAll(() => f.close());

/** A plain-HTTP request on a new connection: its status, or null when the edge closed the connection unanswered. */
async function plainStatus(): Promise<number | null> {
  const socket = await connectWithHeader(f.edge.httpPort, null);
  const answer = closedBy(socket);
  socket.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\nConnection: close\r\n\r\n`);
  const text = await answer;
  return text === '' ? null : Number(text.slice(9, 12));
}

it(`refuses connection ${MAX + 1} on either listener while ${MAX} are open, and serves again once one closes`, async () => {
  const open: Array<net.Socket | tls.TLSSocket> = [
    await tlsWithHeader(f.edge.httpsPort, null, domain.hostname, f.caPem, 'http/1.1'),
    await connectWithHeader(f.edge.httpPort, null),
    await tlsWithHeader(f.edge.httpsPort, null, domain.hostname, f.caPem, 'h2'),
  ];
  // Open and idle, each counts, whichever listener took it.
  expect(await plainStatus()).toBeNull();
  await expect(tlsWithHeader(f.edge.httpsPort, null, domain.hostname, f.caPem, 'http/1.1')).rejects.toThrow(/socket disconnected|ECONNRESET/);
  expect(refusals).toEqual(['max_connections', 'max_connections']);

  open.pop()?.destroy();
  await eventually('a connection to be served again after one closed', async () => (await plainStatus()) === 308);
  // Still capped: the one freed place is taken again by an open connection.
  const again = await tlsWithHeader(f.edge.httpsPort, null, domain.hostname, f.caPem, 'http/1.1');
  open.push(again);
  expect(await plainStatus()).toBeNull();

  // An open TLS connection in use is served as usual.
  expect((await http1Over(open[0] as tls.TLSSocket, domain.hostname)).status).toBe(200);
  for (const socket of open) socket.destroy();
});
