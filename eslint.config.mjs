// ESLint keeps the boundaries of the tree (CONTRIBUTING.md, "Boundaries"): `npm test` runs it, so CI fails when one is
// crossed. Formatting is Prettier's (`npm run format`), not ESLint's.
import tseslint from 'typescript-eslint';
import importBoundaries from './eslint/import-boundaries.mjs';

const FRAMEWORKS =
  '^pkg:(@nestjs/.*|typeorm|pg|ioredis|bullmq|undici|fastify|@fastify/.*|@eventstore/.*|nodemailer|pino|prom-client|rxjs)$';
const SPECS = ['**/*.spec.ts', '**/*.spec.tsx', '**/*.contract.ts'];

/** A config block for one boundary: the files it holds for, and the rule's options. */
function boundary(files, options, ignores = SPECS) {
  return { files, ignores, rules: { 'tollgate/import-boundaries': ['error', options] } };
}

export default tseslint.config(
  ...tseslint.configs.recommended,
  {
    ignores: ['node_modules/**', 'dist/**', 'console/dist/**', 'coverage/**', 'data/**', 'test/bench/.work/**', '.tmpbuild/**'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { tollgate: { rules: { 'import-boundaries': importBoundaries } } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore names what a signature or a destructuring must carry but the code does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The bench, the swc loader and other plain scripts are CommonJS run by Node as they are.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and fakes read loosely typed JSON answers; `any` there is the test's business, not the product's.
    files: ['**/*.spec.ts', '**/*.spec.tsx', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  boundary(['server/src/common/**/*.ts'], {
    deny: ['^server/src/(modules|relay|upstreams|workers)/'],
    message: 'common/ is shared by every module and imports none (a module binds a port that common/ declares)',
  }),
  boundary(['server/src/modules/**/*.ts'], {
    deny: ['^server/src/relay/'],
    message: 'modules do not import the relay; what they need of it is a port the relay binds',
  }),
  boundary(['server/src/relay/**/*.ts'], {
    deny: ['^server/src/modules/[^/]+/.+'],
    message: "the relay imports a module only through its public entry point (the module's index.ts)",
  }),
  boundary(['server/src/upstreams/**/*.ts'], {
    // Two providers need a vendor client: AWS Bedrock's SDK (SigV4, the event stream) and iFlytek Spark's WebSocket.
    allow: ['^node:', '^server/src/upstreams/', '^pkg:@aws-sdk/client-bedrock-runtime$', '^pkg:ws$'],
    message: 'an upstream adapter imports only node:*, the upstreams shared helpers and its vendor client (no framework, no module)',
  }),
  boundary(['server/src/**/*.decider.ts'], {
    deny: [
      FRAMEWORKS,
      '^node:',
      '^server/src/(infrastructure|relay|upstreams|workers)/',
      '^server/src/ledger/(postgres|eventstoredb|in-memory)/',
    ],
    message: 'a decider is pure: no framework, no infrastructure, no I/O',
  }),
  {
    files: ['server/src/**/*.decider.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'a decider reads no clock: take the time from the command',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'a decider reads no clock: take the time from the command',
        },
        { selector: "MemberExpression[object.name='performance']", message: 'a decider reads no clock: take the time from the command' },
        { selector: "MemberExpression[object.name='process']", message: 'a decider reads no process state' },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'a decider is deterministic: take randomness from the command',
        },
      ],
    },
  },
  boundary(['projections/src/read-models/**/*.ts'], {
    allow: [
      '^pkg:',
      '^projections/src/',
      '^server/src/ledger/',
      // Events, their codecs and folds, and the ports a projection feeds (the accounts entry holds only those).
      '^server/src/modules/[^/]+/([^/]+\\.(events?|state|port)|[^/]+-event-codec)$',
      '^server/src/modules/accounts$',
      // Pure wording rules the log rows are written with.
      '^server/src/modules/accounts/quota-display$',
      '^server/src/modules/pricing/relay-pricing$',
      '^server/src/common/json/',
      '^server/src/infrastructure/database/named-statements$',
    ],
    message: 'a read model imports only event types (with their folds and ports) and the ledger',
  }),
  boundary(
    ['projections/src/**/*.ts'],
    {
      deny: ['^server/src/(modules|relay|upstreams|workers|common)/'],
      message: 'projections import only event types and the ledger',
    },
    [...SPECS, 'projections/src/read-models/**'],
  ),
  boundary(
    ['console/src/**/*.ts', 'console/src/**/*.tsx'],
    {
      allow: ['^pkg:', '^console/'],
      message: 'the console imports nothing outside console/ (it talks to the server over HTTP only)',
    },
    [],
  ),
);
