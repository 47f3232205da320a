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

// package.json "imports" send #server/* and #projections/* to the build in dist/; here they are the sources.
const path = require('node:path');
const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = { '#server/': 'server/src/', '#projections/': 'projections/src/', '#test/': 'test/' };
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  for (const [alias, folder] of Object.entries(SOURCES)) {
    if (request.startsWith(alias)) return resolveFilename.call(this, path.join(ROOT, folder, request.slice(alias.length)), ...rest);
  }
  return resolveFilename.call(this, request, ...rest);
};
process.setSourceMapsEnabled?.(true);
