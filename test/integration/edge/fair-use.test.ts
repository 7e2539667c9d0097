// Fair-use notices against a real database and a real SMTP server on loopback:
// one mail per application and month across replicas, recorded (not sent)
// without SMTP_URL or contact address, retried after a failed send, and sent
// by another replica when the one that claimed it stopped mid-send.
import net, { type AddressInfo, type Socket } from 'node:net';
import type { ApplicationRow, DataStore } from '@cds/data';
import { createFairUseWatch, STALE_CLAIM_MS, TrafficCounter } from '@cds/edge-proxy';
import { anApplication, openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import { eventually } from '../../support/eventually';
import { capturingLogger } from './edge-test-logger';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './smtp-sink';

const FROM = 'Custom Domains <notices@custom-domains.example>';

let ctx: MigratedStore;
let sink: SmtpSink;

beforeAll(async () => {
  ctx = await openMigratedStore();
  sink = await startSmtpSink();
});
afterAll(async () => {
  await sink?.close();
  await ctx?.close();
});

async function newApplication(limitBytes: number, contactEmail: string | null = 'owner@shop.example'): Promise<ApplicationRow> {
  const base = anApplication({ contactEmail });
  const app = { ...base, limits: { ...base.limits, fair_use_bytes_per_month: limitBytes } };
  await ctx.store.run((r) => r.applications.insert(app));
  return app;
}

const mailsFor = (app: ApplicationRow, from: SmtpSink = sink): ReceivedMail[] => from.received.filter((mail) => mail.headers.subject?.includes(app.slug));
const addTraffic = (app: ApplicationRow, day: string, bytes: number) => ctx.store.run((r) => r.traffic.addTraffic(app.id, day, 1, bytes));
const notice = async (app: ApplicationRow, month: string): Promise<Record<string, unknown> | null> => {
  const value = await ctx.store.run((r) => r.settings.get(`fair_use_notice:${app.id}:${month}`));
  return value === null ? null : (JSON.parse(value) as Record<string, unknown>);
};

function clockAt(iso: string): { now: () => Date; set(iso: string): void } {
  let current = new Date(iso);
  return { now: () => current, set: (next) => { current = new Date(next); } };
}

it('claims a settings key for exactly one of many concurrent callers in two processes', async () => {
  const other: DataStore = await ctx.openAnother();
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? other : ctx.store).run((r) => r.settings.setIfAbsent('fair_use_notice:race', `caller-${i}`))),
  );
  expect(results.filter((won) => won)).toHaveLength(1);
  expect(await ctx.store.run((r) => r.settings.get('fair_use_notice:race'))).toBe(`caller-${results.indexOf(true)}`);
  expect(await other.run((r) => r.settings.setIfAbsent('fair_use_notice:race', 'late'))).toBe(false);
  await ctx.store.run((r) => r.settings.delete('fair_use_notice:race'));
  expect(await other.run((r) => r.settings.setIfAbsent('fair_use_notice:race', 'after-delete'))).toBe(true);
  expect(await ctx.store.run((r) => r.settings.get('fair_use_notice:race'))).toBe('after-delete');
});

it('replaces or removes a settings value only while it is the expected one, for exactly one of many callers in two processes', async () => {
  const other: DataStore = await ctx.openAnother();
  const key = 'fair_use_notice:replace-race';
  expect(await ctx.store.run((r) => r.settings.setIfAbsent(key, 'stale'))).toBe(true);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? other : ctx.store).run((r) => r.settings.replaceIf(key, 'stale', `taker-${i}`))),
  );
  expect(results.filter((won) => won)).toHaveLength(1);
  expect(await ctx.store.run((r) => r.settings.get(key))).toBe(`taker-${results.indexOf(true)}`);
  expect(await other.run((r) => r.settings.replaceIf(key, 'stale', 'late'))).toBe(false);
  expect(await other.run((r) => r.settings.replaceIf('fair_use_notice:absent', 'stale', 'x'))).toBe(false);
  expect(await other.run((r) => r.settings.get('fair_use_notice:absent'))).toBeNull();
  expect(await other.run((r) => r.settings.deleteIf(key, 'stale'))).toBe(false);
  expect(await ctx.store.run((r) => r.settings.get(key))).toBe(`taker-${results.indexOf(true)}`);
  expect(await other.run((r) => r.settings.deleteIf(key, `taker-${results.indexOf(true)}`))).toBe(true);
  expect(await ctx.store.run((r) => r.settings.get(key))).toBeNull();
});

it('mails the contact once when flushed bytes pass the limit, not again on later flushes, other replicas or the same month', async () => {
  const app = await newApplication(10_000);
  const clock = clockAt('2026-11-20T10:00:00.000Z');
  await addTraffic(app, '2026-10-31', 50_000); // last month: does not count
  await addTraffic(app, '2026-11-01', 6000);
  const { logger, lines } = capturingLogger();
  const watch = createFairUseWatch({ store: ctx.store, logger, smtpUrl: sink.url, smtpFrom: FROM, now: clock.now });
  const counter = new TrafficCounter({ store: ctx.store, logger, now: clock.now, afterFlush: (ids) => watch.check(ids) });

  counter.record(app.id, 4000); // 10 000: at the limit, not past it
  await counter.flush();
  expect(mailsFor(app)).toHaveLength(0);
  expect(await notice(app, '2026-11')).toBeNull();

  counter.record(app.id, 500); // 10 500
  await counter.flush();
  const mails = mailsFor(app);
  expect(mails).toHaveLength(1);
  const [mail] = mails as [ReceivedMail];
  expect(mail.rcptTo).toEqual(['owner@shop.example']);
  expect(mail.mailFrom).toBe('notices@custom-domains.example');
  expect(mail.headers.to).toBe('owner@shop.example');
  expect(mail.headers.from).toBe(FROM);
  expect(mail.headers.subject).toBe(`Fair-use notice for ${app.slug}: 10.5 KB served in 2026-11`);
  expect(mail.body).toContain(`Your application ${app.slug} (${app.name}) has served 10.5 KB (10500 bytes)`);
  expect(mail.body).toContain('10 KB (10000 bytes) per month');
  expect(mail.body).toContain('Nothing has been switched off');
  expect(await notice(app, '2026-11')).toMatchObject({ state: 'sent', bytes: 10_500, limit: 10_000 });
  await eventually('the notice-sent log line', () => lines.some((line) => line.message === 'fair-use limit passed; notice sent' && line.slug === app.slug));

  for (let i = 0; i < 3; i += 1) {
    counter.record(app.id, 100_000);
    await counter.flush();
  }
  const replica = createFairUseWatch({ store: await ctx.openAnother(), logger, smtpUrl: sink.url, smtpFrom: FROM, now: clock.now });
  await replica.check([app.id]);
  await replica.close();
  expect(mailsFor(app)).toHaveLength(1);

  clock.set('2026-12-01T00:00:03.000Z'); // a new month starts from zero
  counter.record(app.id, 9000);
  await counter.flush();
  expect(mailsFor(app)).toHaveLength(1);
  counter.record(app.id, 1001);
  await counter.flush();
  expect(mailsFor(app)).toHaveLength(2);
  expect(mailsFor(app)[1]?.headers.subject).toBe(`Fair-use notice for ${app.slug}: 10 KB served in 2026-12`);
  expect(await notice(app, '2026-12')).toMatchObject({ state: 'sent', bytes: 10_001 });

  await counter.stop();
  await watch.close();
});

it('sends one mail when two replicas check the same application at once', async () => {
  const app = await newApplication(100);
  await addTraffic(app, '2026-11-02', 101);
  const now = () => new Date('2026-11-02T12:00:00Z');
  const { logger } = capturingLogger();
  const watches = [
    createFairUseWatch({ store: ctx.store, logger, smtpUrl: sink.url, smtpFrom: FROM, now }),
    createFairUseWatch({ store: await ctx.openAnother(), logger, smtpUrl: sink.url, smtpFrom: FROM, now }),
  ];
  await Promise.all([...watches, ...watches].map((watch) => watch.check([app.id, app.id])));
  expect(mailsFor(app)).toHaveLength(1);
  await Promise.all(watches.map((watch) => watch.close()));
});

it('does nothing below or at the limit', async () => {
  const app = await newApplication(5000);
  await addTraffic(app, '2026-11-01', 2500);
  await addTraffic(app, '2026-11-15', 2500);
  const watch = createFairUseWatch({ store: ctx.store, logger: capturingLogger().logger, smtpUrl: sink.url, smtpFrom: FROM, now: () => new Date('2026-11-30T23:59:59Z') });
  await watch.check([app.id]);
  expect(mailsFor(app)).toHaveLength(0);
  expect(await notice(app, '2026-11')).toBeNull();
  await watch.close();
});

it('without SMTP_URL logs and records the notice once, and sends nothing', async () => {
  const app = await newApplication(1000);
  await addTraffic(app, '2026-11-03', 1500);
  const { logger, lines } = capturingLogger();
  const watch = createFairUseWatch({ store: ctx.store, logger, smtpUrl: null, smtpFrom: null, now: () => new Date('2026-11-03T09:00:00Z') });
  await watch.check([app.id]);
  await watch.check([app.id]);
  expect(mailsFor(app)).toHaveLength(0);
  expect(await notice(app, '2026-11')).toMatchObject({ state: 'recorded', reason: 'no_smtp_url', bytes: 1500, limit: 1000 });
  const logged = () => lines.filter((line) => line.message === 'fair-use limit passed; notice recorded, not sent' && line.slug === app.slug);
  await eventually('a log line', () => logged().length > 0);
  expect(logged()).toHaveLength(1);
  expect(logged()[0]).toMatchObject({ level: 'info', month: '2026-11', bytes: 1500, limit: 1000, subject: `Fair-use notice for ${app.slug}: 1.5 KB served in 2026-11` });
  await watch.close();
});

it('records without sending when the application has no contact address', async () => {
  const app = await newApplication(1000, null);
  await addTraffic(app, '2026-11-03', 2000);
  const watch = createFairUseWatch({ store: ctx.store, logger: capturingLogger().logger, smtpUrl: sink.url, smtpFrom: FROM, now: () => new Date('2026-11-03T09:00:00Z') });
  await watch.check([app.id]);
  expect(mailsFor(app)).toHaveLength(0);
  expect(await notice(app, '2026-11')).toMatchObject({ state: 'recorded', reason: 'no_contact_email' });
  await watch.close();
});

it('gives the claim back when the SMTP server is down, and sends once when it is back', async () => {
  const app = await newApplication(1000);
  await addTraffic(app, '2026-11-04', 1001);
  const down = await startSmtpSink();
  const port = down.port;
  await down.close();
  const { logger, lines } = capturingLogger();
  const watch = createFairUseWatch({ store: ctx.store, logger, smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: null, now: () => new Date('2026-11-04T09:00:00Z') });

  await expect(watch.check([app.id])).resolves.toBeUndefined();
  expect(await notice(app, '2026-11')).toBeNull();
  await eventually('the notice-not-sent warning', () => lines.some((line) => line.level === 'warn' && line.message === 'fair-use notice could not be sent; a later flush retries' && line.slug === app.slug));

  const back = await startSmtpSink(port);
  try {
    await watch.check([app.id]);
    await watch.check([app.id]);
    expect(mailsFor(app, back)).toHaveLength(1);
    expect(mailsFor(app, back)[0]?.headers.from).toBe('Custom Domains <noreply@localhost>');
    expect(await notice(app, '2026-11')).toMatchObject({ state: 'sent' });
  } finally {
    await back.close();
    await watch.close();
  }
});

it('never rejects, even when the database is gone', async () => {
  const closed = await ctx.openAnother();
  await closed.close();
  const { logger, lines } = capturingLogger();
  const watch = createFairUseWatch({ store: closed, logger, smtpUrl: sink.url, smtpFrom: FROM });
  await expect(watch.check(['3f1d8f4e-0000-4000-8000-000000000001'])).resolves.toBeUndefined();
  await eventually('the fair-use-check-failed warning', () => lines.some((line) => line.level === 'warn' && line.message === 'fair-use check failed'));
  await watch.close();
});

/** An SMTP server that accepts connections and never greets: a send to it hangs until cut(). */
async function startSilentSmtp(): Promise<{ url: string; connections: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return sockets.size;
    },
    async cut() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a claim left by a replica that stopped mid-send', () => {
  const claimedAt = '2026-11-05T10:00:00.000Z';
  const later = (ms: number) => new Date(Date.parse(claimedAt) + ms);

  /** Replica A claims the notice at `claimedAt` and hangs in the middle of sending it (as a replica that dies there leaves it). */
  async function claimAndHang(app: ApplicationRow) {
    const silent = await startSilentSmtp();
    const stuck = createFairUseWatch({ store: ctx.store, logger: capturingLogger().logger, smtpUrl: silent.url, smtpFrom: FROM, now: () => new Date(claimedAt) });
    const checking = stuck.check([app.id]);
    await eventually('a claimed notice and a connection to the silent server', async () => silent.connections > 0 && (await notice(app, '2026-11'))?.state === 'claimed');
    let finished: Promise<void> | null = null;
    return {
      /** The send fails at last (the connection is cut); A's check ends. */
      finish() {
        finished ??= (async () => {
          await silent.cut();
          await checking;
          await stuck.close();
        })();
        return finished;
      },
    };
  }

  it('is left alone while fresh, taken over by another replica once stale and sent once; the first replica then gives back nothing', async () => {
    const app = await newApplication(100);
    await addTraffic(app, '2026-11-05', 101);
    const a = await claimAndHang(app);
    const claim = await notice(app, '2026-11');
    expect(claim).toMatchObject({ state: 'claimed', at: claimedAt });
    try {
      const { logger, lines } = capturingLogger();
      let clock = later(60_000);
      const b = createFairUseWatch({ store: await ctx.openAnother(), logger, smtpUrl: sink.url, smtpFrom: FROM, now: () => clock });
      await b.check([app.id]);
      expect(mailsFor(app)).toHaveLength(0);
      expect(await notice(app, '2026-11')).toEqual(claim);

      clock = later(STALE_CLAIM_MS - 1);
      await b.check([app.id]);
      expect(mailsFor(app)).toHaveLength(0);

      clock = later(STALE_CLAIM_MS);
      await b.check([app.id]);
      expect(mailsFor(app)).toHaveLength(1);
      expect(mailsFor(app)[0]?.rcptTo).toEqual(['owner@shop.example']);
      expect(await notice(app, '2026-11')).toMatchObject({ state: 'sent', bytes: 101, limit: 100, at: later(STALE_CLAIM_MS).toISOString() });
      await eventually('the claim-taken-over warning', () => lines.some((line) => line.level === 'warn' && line.message === 'fair-use notice claimed long ago and never sent; taking the claim over'));

      // A's send fails at last: it must not give back (delete) what is no longer its claim.
      await a.finish();
      expect(await notice(app, '2026-11')).toMatchObject({ state: 'sent' });
      clock = later(STALE_CLAIM_MS + 60_000);
      await b.check([app.id]);
      const c = createFairUseWatch({ store: ctx.store, logger, smtpUrl: sink.url, smtpFrom: FROM, now: () => later(2 * STALE_CLAIM_MS) });
      await c.check([app.id]);
      await c.close();
      expect(mailsFor(app)).toHaveLength(1);
      await b.close();
    } finally {
      await a.finish();
    }
  });

  it('is taken over by exactly one of several replicas that find it stale at once', async () => {
    const app = await newApplication(100);
    await addTraffic(app, '2026-11-05', 101);
    const a = await claimAndHang(app);
    try {
      const now = () => later(STALE_CLAIM_MS + 1_000);
      const { logger, lines } = capturingLogger();
      const replicas = [
        createFairUseWatch({ store: ctx.store, logger, smtpUrl: sink.url, smtpFrom: FROM, now }),
        createFairUseWatch({ store: await ctx.openAnother(), logger, smtpUrl: sink.url, smtpFrom: FROM, now }),
        createFairUseWatch({ store: await ctx.openAnother(), logger, smtpUrl: sink.url, smtpFrom: FROM, now }),
      ];
      await Promise.all([...replicas, ...replicas].map((replica) => replica.check([app.id, app.id])));
      expect(mailsFor(app)).toHaveLength(1);
      expect(await notice(app, '2026-11')).toMatchObject({ state: 'sent' });
      expect(lines.filter((line) => line.message === 'fair-use notice claimed long ago and never sent; taking the claim over')).toHaveLength(1);
      await Promise.all(replicas.map((replica) => replica.close()));
    } finally {
      await a.finish();
    }
    expect(mailsFor(app)).toHaveLength(1);
  });
});
