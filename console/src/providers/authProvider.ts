import type { AuthProvider } from 'react-admin';
import { clearStoredUser, DEFAULT_PASSWORD_WARNING_KEY, getStoredUser, setStoredUser } from '../lib/storage';
import type { SessionUser } from '../lib/types';
import { apiRequest, type ApiError } from './httpClient';

export interface LoginParams {
  username: string;
  password: string;
  /** Turnstile token, required by the server only when the check is on. */
  turnstile?: string;
}

/** The default root account (root / 123456), as new-api seeds it; the warning is purely client-side. */
const usesDefaultRootPassword = ({ username, password }: LoginParams) => username === 'root' && password === '123456';

/** Stores the user of a successful login (password, OAuth, WeChat or Telegram). */
export const rememberLogin = (user: SessionUser): void => {
  setStoredUser(user);
};

export const authProvider: AuthProvider = {
  async login(params: LoginParams) {
    const user = await apiRequest<SessionUser>('/api/user/login', {
      method: 'POST',
      query: { turnstile: params.turnstile },
      body: { username: params.username, password: params.password },
    });
    rememberLogin(user);
    if (usesDefaultRootPassword(params)) sessionStorage.setItem(DEFAULT_PASSWORD_WARNING_KEY, '1');
    else sessionStorage.removeItem(DEFAULT_PASSWORD_WARNING_KEY);
  },

  async logout() {
    const hadUser = getStoredUser() !== null;
    clearStoredUser();
    sessionStorage.removeItem(DEFAULT_PASSWORD_WARNING_KEY);
    if (hadUser) {
      // The local user is gone whatever the server says; a failed call must not keep anyone logged in.
      await apiRequest('/api/user/logout').catch(() => undefined);
    }
    return '/login';
  },

  async checkAuth() {
    if (!getStoredUser()) throw { redirectTo: '/login', message: false };
  },

  async checkError(error: ApiError) {
    // The HTTP client already handles 401 by redirecting to /login?expired=true. Application failures
    // (success:false, including "insufficient role", which the server answers with HTTP 200) keep the session.
    if (error?.status === 401) throw { redirectTo: '/login?expired=true', logoutUser: false, message: false };
  },

  async getPermissions() {
    return getStoredUser()?.role ?? 0;
  },

  async getIdentity() {
    const user = getStoredUser();
    if (!user) throw new Error('not logged in');
    return { id: user.id, fullName: user.display_name || user.username };
  },
};
