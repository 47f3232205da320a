/** What a redacted secret is replaced with. */
export const REDACTED = '***';

/** Shorter pieces are not searched for: they would match ordinary words (and are no secret on their own). */
const MIN_FRAGMENT = 8;

/** JSON properties of a credential (a Vertex service-account file) whose values are secret. */
const SECRET_PROPERTY = /key|secret|token|password/i;

/**
 * The texts of a channel key an upstream could repeat: the whole key, each line of a multi-line key, each part of
 * a `part|part` key (Baidu, Xunfei, Tencent…), and the secret values of a JSON credential (a Vertex service
 * account's private_key and private_key_id), each also as JSON escapes it. Longest first.
 */
export function secretFragments(key: string): string[] {
  const fragments = new Set<string>();
  const add = (text: string) => {
    const trimmed = text.trim();
    if (trimmed.length < MIN_FRAGMENT) return;
    fragments.add(trimmed);
    fragments.add(JSON.stringify(trimmed).slice(1, -1));
  };
  add(key);
  for (const line of key.split('\n')) {
    add(line);
    for (const part of line.split('|')) add(part);
  }
  if (key.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(key);
      if (parsed && typeof parsed === 'object') {
        for (const [name, value] of Object.entries(parsed)) {
          if (typeof value !== 'string' || !SECRET_PROPERTY.test(name)) continue;
          add(value);
          for (const line of value.split('\n')) add(line);
        }
      }
    } catch {
      // Not JSON after all: the whole key and its lines are covered above.
    }
  }
  return [...fragments].sort((a, b) => b.length - a.length);
}

/** `text` with every fragment of `key` (secretFragments) replaced by ***; the error paths' guard against upstreams echoing a key. */
export function redactKey(text: string, key: string): string {
  if (!text || !key) return text;
  let redacted = text;
  for (const fragment of secretFragments(key)) {
    if (redacted.includes(fragment)) redacted = redacted.split(fragment).join(REDACTED);
  }
  return redacted;
}
