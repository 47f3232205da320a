import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The boundaries of eslint.config.mjs, checked through ESLint itself: each case is a file's text at a path of the
 * tree, linted with the repository's config (in a child process, since the config is an ES module).
 */
const ROOT = resolve(__dirname, '..', '..');

interface Case {
  path: string;
  code: string;
}

function lint(cases: Case[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    const cases = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
    const out = [];
    for (const c of cases) {
      const [result] = await eslint.lintText(c.code, { filePath: c.path });
      out.push(result.messages.map((m) => (m.ruleId ?? 'fatal') + ': ' + m.message));
    }
    console.log(JSON.stringify(out));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(cases)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[][];
}

const refused = (messages: string[]) =>
  messages.filter((message) => message.startsWith('tollgate/') || message.startsWith('no-restricted-syntax'));

describe('import boundaries (eslint.config.mjs)', () => {
  const cases: Array<Case & { crossed: boolean }> = [
    // Upstream adapters: node:* and the upstreams' own helpers only.
    {
      path: 'server/src/upstreams/openai/x.ts',
      code: "import { randomUUID } from 'node:crypto';\nimport { scan } from '../shared/json-scan';\nexport const a = [randomUUID, scan];\n",
      crossed: false,
    },
    {
      path: 'server/src/upstreams/openai/x.ts',
      code: "import { Injectable } from '@nestjs/common';\nexport const a = Injectable;\n",
      crossed: true,
    },
    {
      path: 'server/src/upstreams/openai/x.ts',
      code: "import { TokenReader } from '../../modules/tokens/token.reader';\nexport const a = TokenReader;\n",
      crossed: true,
    },
    {
      path: 'server/src/upstreams/openai/x.ts',
      code: "import { streams } from '#server/ledger/streams';\nexport const a = streams;\n",
      crossed: true,
    },
    // Deciders: no framework, no infrastructure, no clock.
    {
      path: 'server/src/modules/tokens/x.decider.ts',
      code: "import { Repository } from 'typeorm';\nexport const a = Repository;\n",
      crossed: true,
    },
    { path: 'server/src/modules/tokens/x.decider.ts', code: 'export const now = () => Date.now();\n', crossed: true },
    { path: 'server/src/modules/tokens/x.decider.ts', code: 'export const now = () => new Date();\n', crossed: true },
    {
      path: 'server/src/modules/tokens/x.decider.ts',
      code: "import { tokenStream } from '../../ledger/streams';\nexport const at = (ms: number) => [new Date(ms), tokenStream];\n",
      crossed: false,
    },
    // The console talks to the server over HTTP only.
    {
      path: 'console/src/pages/x.tsx',
      code: "import { UserEntity } from '../../../server/src/modules/users/user.entity';\nexport const a = UserEntity;\n",
      crossed: true,
    },
    {
      path: 'console/src/pages/x.tsx',
      code: "import { streams } from '#server/ledger/streams';\nexport const a = streams;\n",
      crossed: true,
    },
    {
      path: 'console/src/pages/x.tsx',
      code: "import { useState } from 'react';\nimport { api } from '../lib/api';\nexport const a = [useState, api];\n",
      crossed: false,
    },
    // Read models: event types and the ledger.
    {
      path: 'projections/src/read-models/logs/x.ts',
      code: "import { UserEntity } from '#server/modules/users/user.entity';\nexport const a = UserEntity;\n",
      crossed: true,
    },
    {
      path: 'projections/src/read-models/logs/x.ts',
      code: "import type { AccountEvent } from '#server/modules/accounts/account.events';\nimport { EVENT_STORE } from '#server/ledger/event-store.port';\nexport const a = EVENT_STORE;\nexport type A = AccountEvent;\n",
      crossed: false,
    },
    // The relay reaches a module through its entry point only.
    {
      path: 'server/src/relay/pipeline/x.ts',
      code: "import { TokensModule } from '#server/modules/tokens/index';\nexport const a = TokensModule;\n",
      crossed: false,
    },
    {
      path: 'server/src/relay/pipeline/x.ts',
      code: "import { TokenReader } from '#server/modules/tokens/token.reader';\nexport const a = TokenReader;\n",
      crossed: true,
    },
    // common/ imports no module; modules do not import the relay.
    {
      path: 'server/src/common/http/x.ts',
      code: "import { UserEntity } from '../../modules/users/user.entity';\nexport const a = UserEntity;\n",
      crossed: true,
    },
    {
      path: 'server/src/modules/tokens/x.ts',
      code: "import { RelayError } from '../../relay/relay-error';\nexport const a = RelayError;\n",
      crossed: true,
    },
  ];

  it('refuses each crossing and accepts what the layer allows', () => {
    const results = lint(cases);
    const verdicts = cases.map((entry, index) => ({ path: entry.path, code: entry.code, crossed: refused(results[index]).length > 0 }));
    expect(verdicts).toEqual(cases.map(({ path, code, crossed }) => ({ path, code, crossed })));
  }, 60_000);
});
