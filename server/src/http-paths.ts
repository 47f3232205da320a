/** Paths that are API, never the single-page console. */
const API_PREFIXES = ['/api', '/v1', '/pg', '/mj', '/suno', '/dashboard', '/metrics'];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) || /^\/[^/]+\/mj\//.test(path);
}
