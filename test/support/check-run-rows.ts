// Rows of domain_check_runs (DECISIONS §15) written with plain SQL beside the
// data store, as the checker stores them: one row per run in the slot of its
// number modulo ten, `checks` a JSON array of [status, error_code, message]
// in the order ownership, routing, certificate, origin.
import Database from 'better-sqlite3';
import { withClient } from './test-database';

export type StoredRunCheck = [status: 'passing' | 'failing' | 'pending', errorCode: string | null, message: string | null];

export interface StoredCheckRun {
  slot: number;
  startedAt: Date;
  durationMs: number;
  trigger: string;
  statusBefore: string;
  statusAfter: string;
  checks: StoredRunCheck[];
}

const INSERT = `INSERT INTO domain_check_runs (domain_id, slot, started_at, duration_ms, trigger, status_before, status_after, checks)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

/** SQLite keeps timestamps as TypeORM writes them: `YYYY-MM-DD HH:MM:SS.SSS`, UTC. */
const sqliteTimestamp = (at: Date) => at.toISOString().replace('T', ' ').replace('Z', '');

/** Writes `runs` of `domainId` into the database at `databaseUrl` (postgres://… or sqlite:…). */
export async function insertCheckRuns(databaseUrl: string, domainId: string, runs: readonly StoredCheckRun[]): Promise<void> {
  const values = (run: StoredCheckRun, at: Date | string) =>
    [domainId, run.slot, at, run.durationMs, run.trigger, run.statusBefore, run.statusAfter, JSON.stringify(run.checks)];
  if (databaseUrl.startsWith('sqlite:')) {
    const file = new Database(databaseUrl.slice('sqlite:'.length));
    try {
      const insert = file.prepare(INSERT.replace(/\$\d/g, '?'));
      file.transaction(() => {
        for (const run of runs) insert.run(...values(run, sqliteTimestamp(run.startedAt)));
      })();
    } finally {
      file.close();
    }
    return;
  }
  await withClient(databaseUrl, async (client) => {
    for (const run of runs) await client.query(INSERT, values(run, run.startedAt));
  });
}
