/**
 * Prints the plain `N passed, N failed` line CI reads (jest's own summary is not read). A skipped
 * test counts as failed: a run is green only when every test ran. The line also goes to
 * .test-servers/summary.txt, or to GLEANER_TEST_SUMMARY when set (test/harness/run-tests.sh gives each
 * project of `npm test` its own file and writes their sum to summary.txt).
 */
class CountReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + skipped;
    if (skipped > 0) process.stdout.write(`\n${skipped} test(s) skipped: counted as failed (every tier must run)\n`);
    const line = `${results.numPassedTests} passed, ${failed} failed`;
    process.stdout.write(`\n${line}\n`);
    const { join } = require('node:path');
    const file = process.env.GLEANER_TEST_SUMMARY || join(__dirname, '..', '..', '.test-servers', 'summary.txt');
    try {
      require('node:fs').writeFileSync(file, line + '\n');
    } catch {}
  }
}
module.exports = CountReporter;
