/**
 * The three test tiers as two jest projects. `unit`: every `*.spec.ts` that needs no server (the specs next to
 * the code in libs/ and apps/, and those of the harness, fixtures, documents and benchmarks under test/).
 * `servers`: the contract/integration (`*.int-spec.ts`) and end-to-end (`*.e2e-spec.ts`) suites under test/,
 * and the specs listed in SPECS_WITH_SERVERS, with the Redis and MongoDB-wire servers global setup starts.
 * `npm test` (test/harness/run-tests.sh) runs both projects at once; with paths it is one run over both.
 * `dev`: developer commands that start their own servers and are not part of `npm test` (`*.dev-spec.ts`,
 * run by `--selectProjects dev`: `npm run test:firecrawl-cluster`).
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

/** The `*.spec.ts` files that use the servers of global setup (`describeWith` in test/harness/require-server.ts). */
const SPECS_WITH_SERVERS = ['test/bench/capacity/redis-stats.spec.ts', 'test/bench/capacity/mongo-wire-counter.spec.ts'];
const withServers = SPECS_WITH_SERVERS.map((path) => `<rootDir>/${path}`);

const project = {
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@app/([^/]+)$': '<rootDir>/libs/$1/src' },
};

module.exports = {
  rootDir: __dirname,
  projects: [
    {
      ...project,
      displayName: 'unit',
      roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/test'],
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...withServers],
    },
    {
      ...project,
      displayName: 'servers',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.int-spec.ts', '**/*.e2e-spec.ts', ...withServers],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
    },
    {
      ...project,
      displayName: 'dev',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.dev-spec.ts'],
    },
  ],
  testTimeout: 30000,
  // The servers project's shards of `npm test` are cut by measured time (test/harness/run-tests.sh).
  testSequencer: '<rootDir>/test/harness/servers-sequencer.js',
  reporters: ['default', ['<rootDir>/test/harness/count-reporter.js', {}]],
};
