// Issue 19: the whole split-mode deployment under fire. Separate processes
// from the built output (2 × api, checker, webhook-dispatcher, edge-proxy) over
// a PostgreSQL cluster and a RabbitMQ node of the test's own, Pebble and
// challtestsrv; a seeded workload (3 applications, 300 domains, 30 published
// wrongly, a third deleted near the end, HTTPS traffic through both edges) and
// a seeded fault schedule (kill -9 every 15 s, the broker stopped for 20 s,
// PostgreSQL restarted, a receiver answering 500 for 30 s; on live domains,
// SERVFAIL bursts on a tenth of the hostnames and an origin failing its
// health probes, which must not take a domain out of ready, and TXT records
// removed from three domains, which must, until they are back). The run happens
// once, before the tests; each invariant is a test of its own, and the table
// of all of them is printed at the end. SYSTEM_SEED replays a run
// (docs/reliability.md).
import { runSystemTest, INVARIANTS, type RunOutcome } from './run';
import { seedFrom } from './seeded-random';

const seed = seedFrom(process.env.SYSTEM_SEED);
/** The run itself: about 5 minutes (setup, 200 s of faults, recovery, observations, teardown). */
const RUN_TIMEOUT_MS = 450_000;

let outcome: RunOutcome | null = null;

beforeAll(async () => {
  outcome = await runSystemTest(seed);
}, RUN_TIMEOUT_MS);

afterAll(() => {
  if (outcome) process.stdout.write(`\nsystem test, seed ${outcome.seed}, ${(outcome.durationMs / 1000).toFixed(0)} s:\n${outcome.table}\n\n`);
});

describe(`the deployment under faults (SYSTEM_SEED=${seed})`, () => {
  test.each(INVARIANTS.map((key) => [key]))('invariant: %s', (key) => {
    if (!outcome) throw new Error('the run did not complete (see its log above)');
    const result = outcome.results[key];
    if (!result.ok) throw new Error(`${result.name}\n${result.summary}\n${result.problems.slice(0, 40).join('\n')}`);
  });
});
