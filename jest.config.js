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

module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/server', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/bench/'],
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
};
