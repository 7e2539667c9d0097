// LiveWebSockets on in-memory streams: a socket is closed once its domain is
// no longer served (not ready, gone, another domain under the name, its
// application suspended), kept while it is, and kept while the database is away.
import { PassThrough } from 'node:stream';
import type { DomainRoute, Route } from '../caches/route-table';
import { LiveWebSockets } from './live-websockets';

const route = (over: Partial<DomainRoute> = {}): DomainRoute => ({
  kind: 'domain',
  domainId: 'd1',
  hostname: 'shop.example.com',
  reference: 'r',
  status: 'ready',
  application: { id: 'a1', slug: 'app', status: 'active', limits: {} as DomainRoute['application']['limits'] },
  originUrl: 'http://127.0.0.1:1',
  redirectTo: null,
  ...over,
});

const afterSweep = () => new Promise((resolve) => setTimeout(resolve, 1_200));

describe('LiveWebSockets', () => {
  let watch: LiveWebSockets;
  afterEach(() => watch.stop());

  it.each<[string, Route]>([
    ['left ready', route({ status: 'attention_required' })],
    ['was deleted', { kind: 'unknown' }],
    ['is another domain now', route({ domainId: 'd2' })],
    ['has its application suspended', route({ application: { ...route().application, status: 'suspended' } })],
  ])('closes the sockets of a domain that %s, and keeps those of a served one', async (_what, changed) => {
    const routes = new Map<string, Route>([['shop.example.com', route()], ['other.example.com', route({ domainId: 'd9', hostname: 'other.example.com' })]]);
    watch = new LiveWebSockets((name) => routes.get(name) as Route);
    const socket = new PassThrough();
    const bystander = new PassThrough();
    watch.add(socket, route());
    watch.add(bystander, routes.get('other.example.com') as DomainRoute);
    await afterSweep();
    expect(socket.destroyed).toBe(false);
    routes.set('shop.example.com', changed);
    await afterSweep();
    expect(socket.destroyed).toBe(true);
    expect(bystander.destroyed).toBe(false);
  });

  it('keeps a socket while its route cannot be read', async () => {
    watch = new LiveWebSockets(() => Promise.reject(new Error('database away')));
    const socket = new PassThrough();
    watch.add(socket, route());
    await afterSweep();
    expect(socket.destroyed).toBe(false);
  });
});
