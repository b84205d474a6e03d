/** Prints the plain `N passed, N failed` line CI reads (jest's own summary is not read). */
class CountReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped`;
    process.stdout.write(`\n${line}\n`);
    try {
      require('node:fs').writeFileSync(require('node:path').join(__dirname, '..', '..', '.test-servers', 'summary.txt'), line + '\n');
    } catch {}
  }
}
module.exports = CountReporter;
