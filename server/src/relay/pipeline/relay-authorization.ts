type Headers = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The header value that carries the relay key, read as new-api reads it: `Authorization`, unless it is
 * empty or `midjourney-proxy` (after one leading `Bearer `) and an `mj-api-secret` header is present; then that
 * header. The authenticator reads the key out of the value as usual (Bearer and `sk-` stripped, `-<channel id>`).
 * Without an `mj-api-secret` header this is a property read and nothing else.
 */
export function relayAuthorization(headers: Headers): string | undefined {
  const authorization = first(headers.authorization);
  const secret = first(headers['mj-api-secret']);
  if (secret === undefined) return authorization;
  if (authorization !== undefined) {
    let value = authorization.trim();
    if (value.startsWith('Bearer ')) value = value.slice('Bearer '.length);
    value = value.trim();
    if (value !== '' && value !== 'midjourney-proxy') return authorization;
  }
  return secret;
}
