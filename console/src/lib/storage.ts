import type { PublicStatus, SessionUser } from './types';

/** Keys new-api's web UI keeps in localStorage; kept identical so operators' habits and scripts still apply. */
export const USER_KEY = 'user';
export const STATUS_KEY = 'status';
export const AFF_KEY = 'aff';
export const THEME_KEY = 'theme';
export const LOCALE_KEY = 'i18nextLng';
export const DEFAULT_PASSWORD_WARNING_KEY = 'default_password_warning';

/** Status fields new-api's web UI also stores one by one. */
const FLATTENED_STATUS_KEYS = [
  'system_name',
  'logo',
  'footer_html',
  'quota_per_unit',
  'display_in_currency',
  'enable_drawing',
  'enable_task',
  'enable_data_export',
  'data_export_default_time',
  'default_collapse_sidebar',
  'mj_notify_enabled',
  'chat_link',
  'chat_link2',
] as const;

const parse = <T>(raw: string | null): T | null => {
  if (raw == null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
};

export const getStoredUser = (): SessionUser | null => {
  const user = parse<SessionUser>(localStorage.getItem(USER_KEY));
  return user && typeof user.id === 'number' ? user : null;
};

/** Fired on this window whenever the stored user changes, so the top bar and sidebar follow logins. */
export const USER_CHANGED_EVENT = 'tollgate:user-changed';

export const setStoredUser = (user: SessionUser): void => {
  localStorage.setItem(USER_KEY, JSON.stringify(user));
  window.dispatchEvent(new Event(USER_CHANGED_EVENT));
};

export const clearStoredUser = (): void => {
  if (localStorage.getItem(USER_KEY) === null) return;
  localStorage.removeItem(USER_KEY);
  window.dispatchEvent(new Event(USER_CHANGED_EVENT));
};

export const getStoredStatus = (): PublicStatus => parse<PublicStatus>(localStorage.getItem(STATUS_KEY)) ?? {};

export const setStoredStatus = (status: PublicStatus): void => {
  localStorage.setItem(STATUS_KEY, JSON.stringify(status));
  for (const key of FLATTENED_STATUS_KEYS) {
    const value = status[key];
    if (value === undefined || value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, String(value));
  }
};
