// Samples, every second until SIGTERM, what the housekeeping benchmark's run is
// doing: rows deleted so far from each pruned table (pg_stat_user_tables,
// which backends report at most once a second) and the WAL position. One line
// per sample to BENCH_SAMPLES:
// `<epoch ms> <outbox deleted> <webhook_attempts deleted> <webhook_deliveries deleted> <WAL bytes>`.
'use strict';
const { appendFileSync, writeFileSync } = require('node:fs');
const { clearInterval, setInterval } = require('node:timers');
const { Client } = require('pg');

const SQL = `SELECT
  (SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = 'outbox') AS outbox,
  (SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = 'webhook_attempts') AS attempts,
  (SELECT n_tup_del FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries') AS deliveries,
  pg_current_wal_lsn() - '0/0'::pg_lsn AS wal`;

async function main() {
  const file = process.env.BENCH_SAMPLES;
  if (!file || !process.env.BENCH_DATABASE_URL) throw new Error('BENCH_SAMPLES and BENCH_DATABASE_URL must be set (run test/bench/housekeeping/run.sh)');
  const pg = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await pg.connect();
  writeFileSync(file, '');
  let busy = false;
  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      await pg.query('SELECT pg_stat_clear_snapshot()');
      const { rows: [r] } = await pg.query(SQL);
      appendFileSync(file, `${Date.now()} ${r.outbox} ${r.attempts} ${r.deliveries} ${r.wal}\n`);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void sample().catch((err) => console.error(err)), 1000);
  process.on('SIGTERM', () => {
    clearInterval(timer);
    void pg.end().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
