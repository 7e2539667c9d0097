// The edge's HTTP-01 listener answers from the database.
import { startChallengeResponder, type ChallengeResponder } from '@cds/edge-proxy';
import { createDataStore, type DataStore } from '@cds/data';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { aDomain, anApplication, checksFor } from '../data/data-fixtures';

let db: TestDatabase;
let store: DataStore;
let responder: ChallengeResponder;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createDataStore({ url: db.url });
  await store.migrate();
  responder = await startChallengeResponder({ store, port: 0, bindAddress: '127.0.0.1' });
});

afterAll(async () => {
  await responder?.close();
  await store?.close();
  await db?.drop();
});

const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${responder.port}${path}`, { method });

test('a stored token gets its key authorization; anything else 404', async () => {
  await store.run((r) => r.acmeChallenges.save({ token: 'tok_en-1', hostname: 'shop.example.com', keyAuthorization: 'tok_en-1.thumb', createdAt: new Date() }));
  const answer = await get('/.well-known/acme-challenge/tok_en-1');
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe('tok_en-1.thumb');
  expect((await get('/.well-known/acme-challenge/other')).status).toBe(404);
  expect((await get('/.well-known/acme-challenge/tok_en-1', 'POST')).status).toBe(404);
  expect((await get('/')).status).toBe(404);
  await store.run((r) => r.acmeChallenges.delete('tok_en-1'));
  expect((await get('/.well-known/acme-challenge/tok_en-1')).status).toBe(404);
});

test('challenges older than the cut-off are removed', async () => {
  const old = new Date(Date.now() - 2 * 3600_000);
  await store.run((r) => r.acmeChallenges.save({ token: 'old', hostname: 'a.example.com', keyAuthorization: 'old.k', createdAt: old }));
  await store.run((r) => r.acmeChallenges.save({ token: 'new', hostname: 'a.example.com', keyAuthorization: 'new.k', createdAt: new Date() }));
  expect(await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(Date.now() - 3600_000)))).toBe(1);
  expect((await get('/.well-known/acme-challenge/old')).status).toBe(404);
  expect((await get('/.well-known/acme-challenge/new')).status).toBe(200);
});

test('challenges whose hostname has no live domain are removed, whatever their age', async () => {
  // Starts from an empty table.
  await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(Date.now() + 3600_000)));
  const app = anApplication();
  const live = aDomain(app.id);
  const deleted = aDomain(app.id);
  const reRegistered = aDomain(app.id);
  await store.transaction(async (r) => {
    await r.applications.insert(app);
    for (const domain of [live, deleted, reRegistered]) await r.domains.insert(domain, checksFor(domain.id));
  });
  expect(await store.run((r) => r.domains.markDeleted(app.id, deleted.id, new Date()))).toBe(true);
  // The hostname of a deleted domain that was registered again has a live domain.
  expect(await store.run((r) => r.domains.markDeleted(app.id, reRegistered.id, new Date()))).toBe(true);
  const again = aDomain(app.id, { hostname: reRegistered.hostname });
  await store.transaction((r) => r.domains.insert(again, checksFor(again.id)));

  const now = new Date();
  const challenges = { live: live.hostname, deleted: deleted.hostname, again: reRegistered.hostname, unknown: 'never-registered.example.net' };
  for (const [token, hostname] of Object.entries(challenges)) {
    await store.run((r) => r.acmeChallenges.save({ token, hostname, keyAuthorization: `${token}.k`, createdAt: now }));
  }
  expect(await store.run((r) => r.acmeChallenges.deleteWithoutLiveDomain())).toBe(2);
  expect((await get('/.well-known/acme-challenge/deleted')).status).toBe(404);
  expect((await get('/.well-known/acme-challenge/unknown')).status).toBe(404);
  expect(await (await get('/.well-known/acme-challenge/live')).text()).toBe('live.k');
  expect(await (await get('/.well-known/acme-challenge/again')).text()).toBe('again.k');
  expect(await store.run((r) => r.acmeChallenges.deleteWithoutLiveDomain())).toBe(0);
});
