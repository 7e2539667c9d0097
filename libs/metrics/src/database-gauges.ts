import type { DataStore } from '@cds/data';
import { databaseMetrics, setDatabaseRefresh } from './definitions';

/** The `within` windows of cds_certificates_expiring (the outbox backlog counts every unpublished row). */
const CERTIFICATE_WINDOWS = { '7d': 7 * 86_400_000, '14d': 14 * 86_400_000 } as const;

export interface DatabaseGaugeOptions {
  /** Reads at most once per this many ms, however often Prometheus scrapes (default 10 s). */
  readonly maxAgeMs?: number;
  readonly now?: () => Date;
}

/**
 * Fills the database gauges (outbox backlog, pending webhook deliveries,
 * certificates near expiry, ready domains confirming a failure) at scrape
 * time. A failed read keeps the last values and counts an error, so /metrics
 * keeps answering.
 */
export function watchDatabase(store: DataStore, opts: DatabaseGaugeOptions = {}): void {
  const maxAgeMs = opts.maxAgeMs ?? 10_000;
  const now = opts.now ?? (() => new Date());
  const m = databaseMetrics();
  let lastRead = 0;
  let reading: Promise<void> | null = null;

  const read = async (): Promise<void> => {
    const at = now();
    try {
      const { count, oldestAt } = await store.run((r) => r.outbox.backlog());
      m.outboxBacklog.set(count);
      m.outboxOldestAge.set(oldestAt ? Math.max(0, (at.getTime() - oldestAt.getTime()) / 1000) : 0);
    } catch {
      m.sourceErrors.inc({ source: 'outbox' });
    }
    try {
      const backlog = await store.run((r) => r.diagnostics.webhookBacklog());
      if (backlog) m.webhookPending.set(backlog.pending);
      for (const [within, ms] of Object.entries(CERTIFICATE_WINDOWS)) {
        const count = await store.run((r) => r.diagnostics.certificatesExpiringBefore(new Date(at.getTime() + ms)));
        if (count !== null) m.certificatesExpiring.set({ within }, count);
      }
      const confirming = await store.run((r) => r.diagnostics.domainsConfirming());
      if (confirming !== null) m.domainsConfirming.set(confirming);
    } catch {
      m.sourceErrors.inc({ source: 'diagnostics' });
    }
    lastRead = Date.now();
  };

  setDatabaseRefresh(async () => {
    if (Date.now() - lastRead < maxAgeMs) return;
    reading ??= read().finally(() => {
      reading = null;
    });
    await reading;
  });
}
