// The housekeeping lease row of the benchmark's database, through the real
// code (HOUSEKEEPING_LEASE_KEY, leaseText, parseLease):
//   node lease.js defer   records a successful run that just ended, so that the
//                         API's first tick finds no run due and the first one
//                         comes one HOUSEKEEPING_INTERVAL later;
//   node lease.js read    prints `holder=<0|1> run_at=<epoch ms> success_at=<epoch ms>`
//                         (0 when unknown): when the last successful run started and ended.
'use strict';
const { leaseText, parseLease } = require('@cds/core');
const { createDataStore, HOUSEKEEPING_LEASE_KEY } = require('@cds/data');

async function main() {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is not set (run test/bench/housekeeping/run.sh)');
  const store = await createDataStore({ url });
  try {
    if (process.argv[2] === 'defer') {
      const now = new Date();
      await store.run((r) => r.settings.set(HOUSEKEEPING_LEASE_KEY, leaseText({ holder: null, until: null, lastRunAt: now, lastSuccessAt: now })));
    } else if (process.argv[2] === 'read') {
      const stored = await store.run((r) => r.settings.get(HOUSEKEEPING_LEASE_KEY));
      const lease = parseLease(stored ?? '');
      console.log(`holder=${lease.holder === null ? 0 : 1} run_at=${lease.lastRunAt?.getTime() ?? 0} success_at=${lease.lastSuccessAt?.getTime() ?? 0}`);
    } else {
      throw new Error('usage: node lease.js defer|read');
    }
  } finally {
    await store.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
