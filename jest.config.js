/** One runner for everything: pure specs, integration specs against real Postgres and Redis, e2e and Playwright. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

/**
 * Specs that load the whole machine on purpose (faults with private services and gateway processes, 500 concurrent
 * relay requests): `npm test` runs them in a second pass, one at a time, so they never starve the specs beside them
 * (a 30 s hook timeout was seen to expire next to them on 2 cores). `JEST_PASS=light` leaves them out; scripts/test.sh
 * then runs them by path with --runInBand. Unset (a plain `npx jest`), everything runs.
 */
const HEAVY = ['/test/faults/', '/test/e2e/overspend-'];
const pass = process.env.JEST_PASS;

module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/server', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/bench/', ...(pass === 'light' ? HEAVY : [])],
  transform: { '^.+\\.tsx?$': swc },
  // package.json "imports" send #server/* and #projections/* to dist/ at run time; tests run the sources.
  moduleNameMapper: {
    '^#server/(.*)$': '<rootDir>/server/src/$1',
    '^#projections/(.*)$': '<rootDir>/projections/src/$1',
    '^#test/(.*)$': '<rootDir>/test/$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker that has run many app-starting specs holds GBs (seen: 4 GB each near the end of the run) and its GC
  // pauses then stretch an app start past the 30 s hook timeout: recycle a worker above this between files.
  workerIdleMemoryLimit: '1536MB',
};
