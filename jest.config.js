/** One jest run for all three tiers: unit specs next to the code, contract/integration and e2e under test/. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    // Keep real dynamic import() (got-scraping and other ESM-only packages).
    module: { type: 'commonjs', ignoreDynamic: true },
  },
];

module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/test'],
  testRegex: '.*\\.(spec|int-spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@app/([^/]+)$': '<rootDir>/libs/$1/src' },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testTimeout: 30000,
  reporters: ['default', ['<rootDir>/test/harness/count-reporter.js', {}]],
};
