// The edge's HTTP-01 listener answers from the database.
import { startChallengeResponder, type ChallengeResponder } from '@cds/edge-proxy';
import { createDataStore, type DataStore } from '@cds/data';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';

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
