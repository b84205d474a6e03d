/**
 * Prints the plain `N passed, N failed` line CI reads (jest's own summary is not read). A skipped
 * test counts as failed: a run is green only when every test ran.
 */
class CountReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + skipped;
    if (skipped > 0) process.stdout.write(`\n${skipped} test(s) skipped: counted as failed (every tier must run)\n`);
    const line = `${results.numPassedTests} passed, ${failed} failed`;
    process.stdout.write(`\n${line}\n`);
    try {
      require('node:fs').writeFileSync(require('node:path').join(__dirname, '..', '..', '.test-servers', 'summary.txt'), line + '\n');
    } catch {}
  }
}
module.exports = CountReporter;
