/**
 * One rule for every layer boundary of the tree (CONTRIBUTING.md lists them). An import is first resolved to what it
 * names from the repository's root: a relative path to its file (`server/src/relay/pipeline/x`), a package.json
 * alias to its source folder (`#server/ledger/streams` is `server/src/ledger/streams`), a package to `pkg:<name>`,
 * a Node built-in to `node:<name>`. The options then say, per folder (the config's `files`), which targets are
 * allowed (`allow`: the import must match one) and which are not (`deny`: it must match none), as regular
 * expressions over that resolved name, with the message to show.
 *
 * Written here rather than taken from eslint-plugin-boundaries or eslint-plugin-import: those resolve through an
 * import resolver that does not read package.json "imports" (our aliases) without more plugins, and a boundary
 * here is a line of configuration over one resolved name, which this rule checks in one pass without type info.
 */
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const ALIASES = [
  ['#server/', 'server/src/'],
  ['#projections/', 'projections/src/'],
  ['#test/', 'test/'],
];

/** What an import names, from the repository's root. */
export function resolveTarget(specifier, filename) {
  if (specifier.startsWith('node:')) return specifier;
  // A folder's index.ts is the folder: `#server/modules/tokens/index` names `server/src/modules/tokens`.
  const folder = (target) => target.replace(/\/index$/, '');
  for (const [alias, root] of ALIASES) if (specifier.startsWith(alias)) return folder(root + specifier.slice(alias.length));
  if (specifier.startsWith('.')) {
    const absolute = path.resolve(path.dirname(filename), specifier);
    return folder(path.relative(ROOT, absolute).split(path.sep).join('/'));
  }
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return `pkg:${name}`;
}

const compile = (list = []) => list.map((source) => new RegExp(source));

export default {
  meta: {
    type: 'problem',
    docs: { description: 'keeps each folder to the imports its layer allows' },
    schema: [
      {
        type: 'object',
        properties: {
          allow: { type: 'array', items: { type: 'string' } },
          deny: { type: 'array', items: { type: 'string' } },
          message: { type: 'string' },
        },
        required: ['message'],
        additionalProperties: false,
      },
    ],
    messages: { crossed: '{{message}} (imports {{target}})' },
  },
  create(context) {
    const options = context.options[0] ?? { message: '' };
    const allow = options.allow ? compile(options.allow) : null;
    const deny = compile(options.deny);
    const filename = context.filename;
    function check(node, source) {
      if (!source || typeof source.value !== 'string') return;
      const target = resolveTarget(source.value, filename);
      const refused = (allow && !allow.some((pattern) => pattern.test(target))) || deny.some((pattern) => pattern.test(target));
      if (refused) context.report({ node: source, messageId: 'crossed', data: { message: options.message, target } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal')
          check(node, node.arguments[0]);
      },
    };
  },
};
