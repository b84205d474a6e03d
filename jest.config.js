/**
 * The three test tiers as two jest projects. `unit`: the specs next to the code in libs/ and apps/, which
 * need no server. `servers`: everything under test/ (contract/integration, end-to-end, and the specs of the
 * harness, fixtures, documents and benchmarks), with the Redis and MongoDB-wire servers global setup starts.
 * `npm test` (test/harness/run-tests.sh) runs both projects at once; with paths it is one run over both.
 */
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

const project = {
  testEnvironment: 'node',
  rootDir: __dirname,
  testRegex: '.*\\.(spec|int-spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@app/([^/]+)$': '<rootDir>/libs/$1/src' },
};

module.exports = {
  rootDir: __dirname,
  projects: [
    { ...project, displayName: 'unit', roots: ['<rootDir>/libs', '<rootDir>/apps'] },
    {
      ...project,
      displayName: 'servers',
      roots: ['<rootDir>/test'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
    },
  ],
  testTimeout: 30000,
  reporters: ['default', ['<rootDir>/test/harness/count-reporter.js', {}]],
};
