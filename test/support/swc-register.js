'use strict';
/**
 * `node --require ./test/support/swc-register.js server/src/main.ts`: runs the TypeScript sources directly, compiled
 * on load by @swc/core with the same settings as jest.config.js (CommonJS, legacy decorators with metadata). Used
 * by tests that need the real gateway as a child process (test/e2e/support/gateway-process.ts) without a build.
 */
const fs = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const options = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

function compile(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...options, filename });
  module._compile(code, filename);
}

Module._extensions['.ts'] = compile;
process.setSourceMapsEnabled?.(true);
