// The edge's HTTP-01 listener answers from the challenges in the database,
// kept in memory and read again when a token is asked that they lack.
import { randomBytes } from 'node:crypto';
import { startChallengeResponder, type ChallengeResponder } from '@cds/edge-proxy';
import { createDataStore, type DataStore } from '@cds/data';
import { eventually } from '../../support/eventually';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { aDomain, anApplication, checksFor } from '../data/data-fixtures';

let db: TestDatabase;
let store: DataStore;
let responder: ChallengeResponder;
let reads = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createDataStore({ url: db.url });
  await store.migrate();
  responder = await startChallengeResponder({ store, port: 0, bindAddress: '127.0.0.1', onRead: () => (reads += 1) });
});

afterAll(async () => {
  await responder?.close();
  await store?.close();
  await db?.drop();
});

const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${responder.port}${path}`, { method });
/** A token as CAs make them: 32 random bytes, base64url (43 characters). */
const newToken = () => randomBytes(32).toString('base64url');
const challenge = (token: string) => get(`/.well-known/acme-challenge/${token}`);

test('a stored token gets its key authorization; anything else 404; a deleted one is no longer answered within 2 s', async () => {
  const token = newToken();
  await store.run((r) => r.acmeChallenges.save({ token, hostname: 'shop.example.com', keyAuthorization: `${token}.thumb`, createdAt: new Date() }));
  const answer = await challenge(token);
  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe(`${token}.thumb`);
  expect((await challenge(newToken())).status).toBe(404);
  expect((await get(`/.well-known/acme-challenge/${token}`, 'POST')).status).toBe(404);
  expect((await get('/')).status).toBe(404);
  await store.run((r) => r.acmeChallenges.delete(token));
  const deleted = Date.now();
  await eventually('the deleted challenge answered 404', async () => (await challenge(token)).status === 404, { timeoutMs: 3_000 });
  expect(Date.now() - deleted).toBeLessThan(2_500);
});

test('malformed tokens are answered 404 at once and never cause a read, however many', async () => {
  const token = newToken();
  await store.run((r) => r.acmeChallenges.save({ token, hostname: 'shop.example.com', keyAuthorization: `${token}.thumb`, createdAt: new Date() }));
  // Let any refresh started by the earlier test end.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = reads;
  const malformed = [
    token.slice(1), `${token}A`, `${token.slice(1)}=`, `${token.slice(1)}.`, `${token.slice(2)}%2F`, 'short', `${token}/x`, randomBytes(16).toString('hex'),
  ];
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 500 }, (_, i) => challenge(malformed[i % malformed.length]!)));
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(reads).toBe(before);
  // The well-formed one is read.
  expect((await challenge(token)).status).toBe(200);
  expect(reads).toBeGreaterThan(before);
});

test('well-formed random tokens cost one read per 200 ms at most, however many wait', async () => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = reads;
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 2_000 }, () => challenge(newToken())));
  const seconds = (Date.now() - started) / 1000;
  expect(answers.every((a) => a.status === 404)).toBe(true);
  expect(reads - before).toBeLessThanOrEqual(1 + Math.ceil(seconds * 5));
});

test('the read of the challenge table gives token and key authorization, newest first, at most the limit', async () => {
  await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(Date.now() + 3600_000)));
  const tokens = [newToken(), newToken(), newToken()];
  for (const [i, token] of tokens.entries()) {
    await store.run((r) => r.acmeChallenges.save({ token, hostname: 'a.example.com', keyAuthorization: `${token}.k`, createdAt: new Date(Date.now() - (3 - i) * 60_000) }));
  }
  const newestFirst = [...tokens].reverse();
  expect(await store.run((r) => r.acmeChallenges.keyAuthorizations(10))).toEqual(new Map(newestFirst.map((t) => [t, `${t}.k`])));
  expect([...(await store.run((r) => r.acmeChallenges.keyAuthorizations(2))).keys()]).toEqual(newestFirst.slice(0, 2));
});

test('challenges older than the cut-off are removed', async () => {
  const [oldToken, newer] = [newToken(), newToken()];
  const old = new Date(Date.now() - 2 * 3600_000);
  await store.run((r) => r.acmeChallenges.save({ token: oldToken, hostname: 'a.example.com', keyAuthorization: 'old.k', createdAt: old }));
  await store.run((r) => r.acmeChallenges.save({ token: newer, hostname: 'a.example.com', keyAuthorization: 'new.k', createdAt: new Date() }));
  expect(await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(Date.now() - 3600_000)))).toBe(1);
  expect((await challenge(oldToken)).status).toBe(404);
  expect((await challenge(newer)).status).toBe(200);
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
  const tokens = Object.fromEntries(Object.keys(challenges).map((name) => [name, newToken()])) as Record<keyof typeof challenges, string>;
  for (const [name, hostname] of Object.entries(challenges)) {
    await store.run((r) => r.acmeChallenges.save({ token: tokens[name as keyof typeof challenges], hostname, keyAuthorization: `${name}.k`, createdAt: now }));
  }
  expect(await store.run((r) => r.acmeChallenges.deleteWithoutLiveDomain())).toBe(2);
  expect((await challenge(tokens.deleted)).status).toBe(404);
  expect((await challenge(tokens.unknown)).status).toBe(404);
  expect(await (await challenge(tokens.live)).text()).toBe('live.k');
  expect(await (await challenge(tokens.again)).text()).toBe('again.k');
  expect(await store.run((r) => r.acmeChallenges.deleteWithoutLiveDomain())).toBe(0);
});
