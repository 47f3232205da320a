/** Largest request body any route accepts (new-api's relay takes 32 MiB uploads); larger answers 413. */
export const HTTP_BODY_LIMIT = 32 * 1024 * 1024;

/** TRUST_PROXY=true: the client address is taken from X-Forwarded-For (behind a reverse proxy you control). */
export function trustProxyFromEnv(env: Record<string, string | undefined> = process.env): boolean {
  return env.TRUST_PROXY === 'true';
}
