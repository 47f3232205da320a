/** The fields the auth guard decides on. */
export interface AuthUserRecord {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
}

/**
 * How the auth guard finds the caller: by the id its session names, or by a system access token. Soft-deleted users
 * are never found. The users module binds it (modules/auth/auth-core.module.ts), so common/ imports no module.
 */
export interface AuthUserLookup {
  findById(id: number): Promise<AuthUserRecord | null>;
  findByAccessToken(token: string): Promise<AuthUserRecord | null>;
}

export const AUTH_USER_LOOKUP = Symbol('AuthUserLookup');
