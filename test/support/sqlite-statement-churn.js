// Prepares and drops statements by the hundred thousand, pausing between batches,
// so that V8 collects them from its own tasks; prints how many it prepared.
// Run by test/integration/data/sqlite-native-gc.test.ts in a process of its own.
const { setTimeout: sleep } = require('node:timers/promises');
const Database = require('better-sqlite3');

const db = new Database(':memory:');
db.exec('CREATE TABLE t (a INTEGER, b TEXT)');
let prepared = 0;
(async () => {
  for (let batch = 0; batch < 300; batch++) {
    for (let i = 0; i < 2000; i++) db.prepare(`INSERT INTO t VALUES (?, ?) -- ${prepared++}`).run(i, 'x');
    await sleep(5);
  }
  db.close();
  console.log(`prepared ${prepared}`);
})();
