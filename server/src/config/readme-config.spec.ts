import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_DEFAULTS, CONFIG_VARIABLES } from './app-config';

/** The README's `## Configuration` table as variable → default cell (a row may list several, split by ` / `). */
function readmeDefaults(): Map<string, string> {
  const readme = readFileSync(resolve(__dirname, '../../../README.md'), 'utf8');
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const defaults = new Map<string, string>();
  for (const row of rows) {
    const [variables, documented] = row.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    const names = variables.split(' / ').map((name) => name.replace(/`/g, ''));
    const values = documented.split(' / ');
    // One default for several variables applies to each of them.
    if (values.length !== names.length && values.length !== 1) throw new Error(`README row for ${variables} has ${values.length} defaults`);
    names.forEach((name, index) => {
      if (defaults.has(name)) throw new Error(`README lists ${name} twice`);
      defaults.set(name, values.length === 1 ? values[0] : values[index]);
    });
  }
  return defaults;
}

describe('README configuration table', () => {
  const readme = readmeDefaults();
  const schema = new Map(CONFIG_VARIABLES.map((variable) => [variable.name, variable.documentedDefault]));

  it('lists exactly the variables of the schema', () => {
    expect([...readme.keys()].sort()).toEqual([...schema.keys()].sort());
  });

  it('states the same default as the schema for every variable', () => {
    const differences = [...schema]
      .filter(([name, documented]) => readme.get(name) !== documented)
      .map(([name, documented]) => ({ name, schema: documented, readme: readme.get(name) }));
    expect(differences).toEqual([]);
  });

  it('documents, for every variable with a default value, that value', () => {
    for (const { name, documentedDefault } of CONFIG_VARIABLES) {
      const value = (CONFIG_DEFAULTS as Record<string, unknown>)[name];
      if (value === undefined) continue;
      const shown = /^`([^`]*)`/.exec(documentedDefault)?.[1];
      const expected = typeof value === 'boolean' ? [String(value), value ? 'on' : 'off'] : [String(value)];
      // Descriptive defaults (Cloudflare's siteverify) have no value to compare.
      if (shown !== undefined) expect({ name, shown: expected.includes(shown) ? 'same' : shown }).toEqual({ name, shown: 'same' });
    }
  });
});
