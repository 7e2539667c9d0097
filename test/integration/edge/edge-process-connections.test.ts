// EDGE_PROXY_PROTOCOL, EDGE_PROXY_PROTOCOL_CIDRS and EDGE_MAX_CONNECTIONS read
// by a real edge-proxy process (split mode, so PostgreSQL whatever
// TEST_DATABASE names): the carried address reaches the origin, connections
// without a header and past the cap are closed, and /metrics counts them; left
// at its default, EDGE_PROXY_PROTOCOL_CIDRS gets a warning at start.
import type net from 'node:net';
import type { DomainRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import { DATA_KEY } from './edge-fixture';
import { metricValue, startEdgeProcess, type EdgeProcess } from './edge-process';
import { startEdgeProcessWorld, type EdgeProcessWorld } from './edge-process-world';
import { closedBy, connectWithHeader, http1Over, proxyV1, proxyV2, tlsWithHeader } from './proxy-client';
import { seedServedDomain } from './served-domain';

const REFUSED = 'cds_edge_connections_refused_total';

let world: EdgeProcessWorld;
let edge: EdgeProcess;
let domain: DomainRow;

beforeAll(async () => {
  world = await startEdgeProcessWorld('edge-process-connections');
  ({ domain } = await seedServedDomain(world.store, world.ca, DATA_KEY, world.origin.url));
  edge = await startEdgeProcess(world.env({ EDGE_PROXY_PROTOCOL: 'true', EDGE_PROXY_PROTOCOL_CIDRS: '127.0.0.0/8', EDGE_MAX_CONNECTIONS: '2' }), world.caPem);
});
afterAll(async () => {
  edge?.kill();
  await world?.close();
});

const refused = async (reason: string) => metricValue((await edge.ops('/metrics')).body, REFUSED, { reason });

it('the carried address reaches the origin; a connection without a header is closed and counted', async () => {
  expect(await refused('proxy_header')).toBe(0);
  const socket = await tlsWithHeader(edge.httpsPort, proxyV2('203.0.113.7'), domain.hostname, world.caPem, 'http/1.1');
  expect((await http1Over(socket, domain.hostname, '/from-process')).status).toBe(200);
  expect(world.origin.requests.find((r) => r.url === '/from-process')?.headers['x-forwarded-for']).toBe('203.0.113.7');

  const bare = await connectWithHeader(edge.httpPort, null);
  const answer = closedBy(bare);
  bare.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\n\r\n`);
  expect(await answer).toBe('');
  expect(await refused('proxy_header')).toBe(1);
});

it('EDGE_MAX_CONNECTIONS=2: a third connection is closed while two are open', async () => {
  // Each try opens its own two: the first test's connection may still be
  // closing on the edge's side when the first try starts, and then takes one
  // of the two places itself.
  await eventually('a third connection to be refused while two are open', async () => {
    const open: net.Socket[] = [await connectWithHeader(edge.httpPort, proxyV1('203.0.113.7')), await connectWithHeader(edge.httpsPort, proxyV1('203.0.113.8'))];
    try {
      const third = await connectWithHeader(edge.httpPort, proxyV1('203.0.113.9'));
      const answer = closedBy(third);
      third.write(`GET / HTTP/1.1\r\nHost: ${domain.hostname}\r\nConnection: close\r\n\r\n`);
      return (await answer) === '';
    } finally {
      for (const socket of open) socket.destroy();
    }
  });
  expect(await refused('max_connections')).toBeGreaterThanOrEqual(1);
});

it('warns at start when EDGE_PROXY_PROTOCOL_CIDRS is left at its default, not when the balancer ranges are named', async () => {
  const WARNING = 'EDGE_PROXY_PROTOCOL is true and EDGE_PROXY_PROTOCOL_CIDRS is its default';
  const defaults = await startEdgeProcess(world.env({ EDGE_PROXY_PROTOCOL: 'true' }), world.caPem);
  try {
    await eventually('the warning about the default trusted peers', () => defaults.output().includes(WARNING), { explain: () => defaults.output() });
    expect(defaults.output()).toContain('Set EDGE_PROXY_PROTOCOL_CIDRS to the ranges the load balancer connects from');
  } finally {
    await defaults.terminate();
  }
  // The process above names 127.0.0.0/8 and has long finished starting.
  expect(edge.output()).not.toContain('EDGE_PROXY_PROTOCOL_CIDRS');
});
