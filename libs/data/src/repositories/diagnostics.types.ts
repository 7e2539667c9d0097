/** Read-only probes for `cdctl doctor`, including tables that later versions add. */
export interface DiagnosticsRepository {
  /** The database server's clock. */
  now(): Promise<Date>;
  /** Certificates whose `not_after` is before `at`; null when the `certificates` table does not exist. */
  certificatesExpiringBefore(at: Date): Promise<number | null>;
  /** Pending webhook deliveries and the earliest `next_attempt_at`; null when `webhook_deliveries` does not exist. */
  webhookBacklog(): Promise<{ pending: number; oldestDueAt: Date | null } | null>;
  /**
   * `ready` domains with a check failure being confirmed (DECISIONS §11: a check
   * row with `failed_runs` > 0); null when `domain_checks` has no `failed_runs` column yet.
   */
  domainsConfirming(): Promise<number | null>;
}
