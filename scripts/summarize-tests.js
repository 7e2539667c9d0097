// Adds up jest's JSON reports and prints the closing line "N passed, N failed".
const fs = require('fs');
let passed = 0, failed = 0, skipped = 0, suitesFailed = 0;
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) { console.log(`missing report: ${file}`); failed += 1; continue; }
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += r.numPassedTests; failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests || 0);
  suitesFailed += r.numFailedTestSuites;
  console.log(`${file}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numFailedTestSuites} suites failed`);
}
if (suitesFailed > 0 && failed === 0) failed = suitesFailed; // a suite that failed to load ran no test
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
