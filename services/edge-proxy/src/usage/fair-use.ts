// Fair use: the first time in a UTC month an application's response bytes pass
// limits.fair_use_bytes_per_month, one e-mail goes to its contact address.
// Nothing is switched off. The notice is claimed in the settings table, so of
// all edge replicas exactly one sends it; a failed send gives the claim back.
// A claim still unsent after STALE_CLAIM_MS belongs to a replica that stopped
// mid-send: the next replica to see it takes it over, by replacing that very
// value, so of several replicas seeing it only one does.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { errorMessage } from '@cds/core';
import type { ApplicationRow, DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import { fairUseMessage, fairUseNoticeKey, isOverFairUse, monthStartDay, utcDay, utcMonth } from './fair-use-notice';

export interface FairUseWatchDeps {
  store: DataStore;
  logger: Logger;
  /** `SMTP_URL`; null: notices are logged and recorded, not sent. */
  smtpUrl: string | null;
  /** `SMTP_FROM`; null: DEFAULT_FROM. */
  smtpFrom: string | null;
  now?: () => Date;
}

export interface FairUseWatch {
  /** Checks these applications' month-to-date bytes and sends due notices. Never rejects. */
  check(applicationIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_FROM = 'Custom Domains <noreply@localhost>';

/** What the claim's settings value says; `claimed` while the mail is on its way. */
type NoticeState = 'claimed' | 'sent' | 'recorded';

interface NoticeRecord {
  state: NoticeState;
  bytes: number;
  limit: number;
  /** When it was claimed (the checking replica's clock). */
  at: string;
  /** Makes each claim's stored value unique, so only its holder can settle or release it. */
  claim?: string;
  reason?: 'no_smtp_url' | 'no_contact_email';
}

// Bounded so a dead mail server cannot hold a flush (and shutdown) for minutes.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** A claim not settled after this long was left by a replica that stopped mid-send (a send gives up within a minute). */
export const STALE_CLAIM_MS = 5 * 60_000;

export function createFairUseWatch(deps: FairUseWatchDeps): FairUseWatch {
  const { store, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const transport = deps.smtpUrl ? nodemailer.createTransport({ url: deps.smtpUrl, ...SMTP_TIMEOUTS }) : null;
  const from = deps.smtpFrom ?? DEFAULT_FROM;
  /** Notice keys known to be settled (sent or recorded), so later flushes skip the database. */
  const settled = new Set<string>();

  async function checkOne(applicationId: string): Promise<void> {
    const at = now();
    const month = utcMonth(at);
    const key = fairUseNoticeKey(applicationId, month);
    if (settled.has(key)) return;

    const app = await store.run((r) => r.applications.findById(applicationId));
    if (!app || app.deletedAt) return;
    const limit = app.limits.fair_use_bytes_per_month;
    const days = await store.run((r) => r.traffic.range(applicationId, monthStartDay(at), utcDay(at)));
    const bytes = days.reduce((sum, day) => sum + day.responseBytes, 0);
    if (!isOverFairUse(bytes, limit)) return;

    const notice: NoticeRecord = { state: 'claimed', bytes, limit, at: at.toISOString(), claim: randomUUID() };
    const claim = JSON.stringify(notice);
    if (!(await store.run((r) => r.settings.setIfAbsent(key, claim)))) {
      // Another replica (or an earlier check) has it. Remember it only once it is settled:
      // a claim still in flight may yet be given back after a failed send.
      const current = await store.run((r) => r.settings.get(key));
      if (isSettled(current)) return void settled.add(key);
      if (current === null || !isStaleClaim(current, at)) return;
      // Its holder stopped mid-send. Whoever replaces that exact value takes it over; the others find it changed.
      if (!(await store.run((r) => r.settings.replaceIf(key, current, claim)))) return;
      logger.warn('fair-use notice claimed long ago and never sent; taking the claim over', { application_id: applicationId, month, stale_claim: current });
    }
    await deliver(app, key, month, notice, claim);
  }

  /** Settles our claim (`claim`, the stored value) as `next`; false when another replica took it over meanwhile. */
  const settle = (key: string, claim: string, next: NoticeRecord) => store.run((r) => r.settings.replaceIf(key, claim, JSON.stringify(next)));

  async function deliver(app: ApplicationRow, key: string, month: string, notice: NoticeRecord, claim: string): Promise<void> {
    const message = fairUseMessage({ slug: app.slug, name: app.name, month, bytesUsed: notice.bytes, limitBytes: notice.limit });
    const fields = { application_id: app.id, slug: app.slug, month, bytes: notice.bytes, limit: notice.limit };
    const to = app.contactEmail;
    if (!transport || !to) {
      const reason = transport ? 'no_contact_email' : 'no_smtp_url';
      logger.info('fair-use limit passed; notice recorded, not sent', { ...fields, reason, subject: message.subject });
      if (await settle(key, claim, { ...notice, state: 'recorded', reason })) settled.add(key);
      return;
    }
    try {
      await transport.sendMail({ from, to, subject: message.subject, text: message.text });
    } catch (err) {
      // Given back only while it is still ours: a claim taken over is the new holder's.
      await store.run((r) => r.settings.deleteIf(key, claim));
      logger.warn('fair-use notice could not be sent; a later flush retries', { ...fields, error: errorMessage(err) });
      return;
    }
    if (await settle(key, claim, { ...notice, state: 'sent' })) {
      settled.add(key);
      logger.info('fair-use limit passed; notice sent', fields);
    } else {
      logger.warn('fair-use notice sent after another replica took the claim over (this send outlasted STALE_CLAIM_MS)', fields);
    }
  }

  return {
    async check(applicationIds) {
      for (const applicationId of new Set(applicationIds)) {
        try {
          await checkOne(applicationId);
        } catch (err) {
          logger.warn('fair-use check failed', { application_id: applicationId, error: errorMessage(err) });
        }
      }
    },
    async close() {
      transport?.close();
    },
  };
}

/** A claim (not settled) made STALE_CLAIM_MS or more before `at`; a value that cannot be read counts as one too. */
function isStaleClaim(value: string, at: Date): boolean {
  let claimedAt = Number.NaN;
  try {
    const record = JSON.parse(value) as Partial<NoticeRecord>;
    if (record.state !== 'claimed') return false;
    claimedAt = Date.parse(record.at ?? '');
  } catch {
    return true;
  }
  return Number.isNaN(claimedAt) || at.getTime() - claimedAt >= STALE_CLAIM_MS;
}

function isSettled(value: string | null): boolean {
  if (!value) return false;
  try {
    const state = (JSON.parse(value) as Partial<NoticeRecord>).state;
    return state === 'sent' || state === 'recorded';
  } catch {
    return false;
  }
}
