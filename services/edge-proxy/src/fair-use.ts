// Fair use: the first time in a UTC month an application's response bytes pass
// limits.fair_use_bytes_per_month, one e-mail goes to its contact address.
// Nothing is switched off. The notice is claimed in the settings table, so of
// all edge replicas exactly one sends it; a failed send gives the claim back.
import nodemailer from 'nodemailer';
import type { ApplicationRow, DataStore } from '@cds/data';
import type { Logger } from '@cds/logging';
import { fairUseMessage, fairUseNoticeKey, isOverFairUse, monthStartDay, utcDay, utcMonth } from './fair-use-notice';

export interface FairUseWatchDeps {
  store: DataStore;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
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
  at: string;
  reason?: 'no_smtp_url' | 'no_contact_email';
}

// Bounded so a dead mail server cannot hold a flush (and shutdown) for minutes.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createFairUseWatch(deps: FairUseWatchDeps): FairUseWatch {
  const { store, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const transport = deps.smtpUrl ? nodemailer.createTransport({ url: deps.smtpUrl, ...SMTP_TIMEOUTS }) : null;
  const from = deps.smtpFrom ?? DEFAULT_FROM;
  /** Notice keys known to be settled (sent or recorded), so later flushes skip the database. */
  const settled = new Set<string>();

  const record = (key: string, value: NoticeRecord) => store.run((r) => r.settings.set(key, JSON.stringify(value)));

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

    const notice: NoticeRecord = { state: 'claimed', bytes, limit, at: at.toISOString() };
    if (!(await store.run((r) => r.settings.setIfAbsent(key, JSON.stringify(notice))))) {
      // Another replica (or an earlier check) has it. Remember it only once it is settled:
      // a claim still in flight may yet be given back after a failed send.
      if (isSettled(await store.run((r) => r.settings.get(key)))) settled.add(key);
      return;
    }
    await deliver(app, key, month, notice);
  }

  async function deliver(app: ApplicationRow, key: string, month: string, notice: NoticeRecord): Promise<void> {
    const message = fairUseMessage({ slug: app.slug, name: app.name, month, bytesUsed: notice.bytes, limitBytes: notice.limit });
    const fields = { applicationId: app.id, slug: app.slug, month, bytes: notice.bytes, limit: notice.limit };
    const to = app.contactEmail;
    if (!transport || !to) {
      const reason = transport ? 'no_contact_email' : 'no_smtp_url';
      logger.info('fair-use limit passed; notice recorded, not sent', { ...fields, reason, subject: message.subject });
      await record(key, { ...notice, state: 'recorded', reason });
      settled.add(key);
      return;
    }
    try {
      await transport.sendMail({ from, to, subject: message.subject, text: message.text });
    } catch (err) {
      await store.run((r) => r.settings.delete(key));
      logger.warn('fair-use notice could not be sent; a later flush retries', { ...fields, error: errorText(err) });
      return;
    }
    await record(key, { ...notice, state: 'sent' });
    settled.add(key);
    logger.info('fair-use limit passed; notice sent', fields);
  }

  return {
    async check(applicationIds) {
      for (const applicationId of new Set(applicationIds)) {
        try {
          await checkOne(applicationId);
        } catch (err) {
          logger.warn('fair-use check failed', { applicationId, error: errorText(err) });
        }
      }
    },
    async close() {
      transport?.close();
    },
  };
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

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
