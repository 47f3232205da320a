import { apiRequest } from '../../../providers/httpClient';

/** One option shown in a settings card. Every value is a string on the wire; booleans are 'true' or 'false'. */
export type OptionField =
  | { key: string; type: 'switch' }
  /** `secret`: never returned by the server, sent only when non-empty. `address`: trailing slashes trimmed. */
  | { key: string; type: 'text'; secret?: boolean; address?: boolean; rows?: number; wide?: boolean; help?: boolean }
  | { key: string; type: 'number'; min: number; integer?: boolean; help?: boolean }
  | { key: string; type: 'choice'; choices: readonly string[] }
  /** A JSON object, checked when the field is left and again before saving. */
  | { key: string; type: 'json'; help?: boolean }
  /** A comma list edited as chips (EmailDomainWhitelist). */
  | { key: string; type: 'list' };

export type OptionMap = Record<string, string>;

/** What a field shows when the server did not list the key (secrets, keys never saved such as CheckSensitiveOnCompletionEnabled). */
export const fieldDefault = (field: OptionField): string => (field.type === 'switch' ? 'false' : '');

/** The card's starting values: the server's, or the field default. Secrets always start blank. */
export const initialValues = (fields: readonly OptionField[], options: OptionMap): OptionMap => {
  const values: OptionMap = {};
  for (const field of fields) {
    const secret = field.type === 'text' && field.secret;
    values[field.key] = secret ? '' : (options[field.key] ?? fieldDefault(field));
  }
  return values;
};

/** The value sent for a field: addresses lose trailing slashes, lists lose blanks and duplicates. */
export const wireValue = (field: OptionField, value: string): string => {
  if (field.type === 'text' && field.address) return value.trim().replace(/\/+$/, '');
  if (field.type === 'list') return splitList(value).join(',');
  return value;
};

export const splitList = (value: string): string[] => [
  ...new Set(
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
];

/**
 * The keys to save, in saving order: only changed ones (a secret counts as changed when it is non-empty),
 * settings before switches, so that e.g. a client id is stored before the switch that needs it.
 */
export const changedKeys = (fields: readonly OptionField[], baseline: OptionMap, draft: OptionMap): string[] => {
  const changed = fields.filter((field) => {
    const value = draft[field.key] ?? '';
    if (field.type === 'text' && field.secret) return value.trim() !== '';
    return wireValue(field, value) !== wireValue(field, baseline[field.key] ?? fieldDefault(field));
  });
  return [...changed.filter((field) => field.type !== 'switch'), ...changed.filter((field) => field.type === 'switch')].map(
    (field) => field.key,
  );
};

/** A problem found before saving: an i18n key and its arguments. */
export interface FieldProblem {
  message: string;
  args?: Record<string, unknown>;
}

export const isJsonObject = (value: string): boolean => {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
};

/** The console's own checks (JSON objects, number bounds); the server checks again and has the last word. */
export const fieldProblem = (field: OptionField, value: string): FieldProblem | null => {
  if (field.type === 'json' && !isJsonObject(value)) return { message: 'app.options.invalid_json' };
  if (field.type === 'number') {
    const text = value.trim();
    const number = Number(text);
    if (text === '' || !Number.isFinite(number) || (field.integer && !Number.isInteger(number))) {
      return { message: field.integer ? 'app.options.not_integer' : 'app.options.not_number' };
    }
    if (number < field.min) return { message: 'app.options.below_min', args: { min: field.min } };
  }
  return null;
};

export interface SaveOutcome {
  saved: string[];
  refused: { key: string; message: string }[];
}

/**
 * Saves the keys one PUT each, in order (the API takes one key per call). A refused key does not stop the
 * others: each answer is recorded and the form keeps what failed for the operator to fix.
 */
export const saveOptions = async (fields: readonly OptionField[], draft: OptionMap, keys: readonly string[]): Promise<SaveOutcome> => {
  const outcome: SaveOutcome = { saved: [], refused: [] };
  for (const key of keys) {
    const field = fields.find((candidate) => candidate.key === key);
    if (!field) continue;
    try {
      await apiRequest('/api/option/', { method: 'PUT', body: { key, value: wireValue(field, draft[key] ?? '') } });
      outcome.saved.push(key);
    } catch (error) {
      outcome.refused.push({ key, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
};

/** GET /api/option/ as a key → value map. */
export const fetchOptions = async (): Promise<OptionMap> => {
  const list = await apiRequest<Array<{ key: string; value: string }> | null>('/api/option/');
  const map: OptionMap = {};
  for (const item of list ?? []) map[item.key] = item.value;
  return map;
};
