import { localStorageStore, type Store } from 'react-admin';
import { LOCALE_KEY, THEME_KEY } from '../lib/storage';

/**
 * react-admin's localStorage store, except that the theme and the locale live under the plain keys
 * new-api's web UI uses (`theme`, `i18nextLng`) and survive the store reset react-admin does on logout.
 */
const MIRRORED: Record<string, string> = { theme: THEME_KEY, locale: LOCALE_KEY };

export const createConsoleStore = (): Store => {
  const base = localStorageStore('1', 'Tollgate');
  return {
    ...base,
    getItem<T = unknown>(key: string, defaultValue?: T): T | undefined {
      const plainKey = MIRRORED[key];
      if (plainKey) {
        const value = localStorage.getItem(plainKey);
        if (value) return value as T;
      }
      return base.getItem(key, defaultValue);
    },
    setItem<T = unknown>(key: string, value: T): void {
      const plainKey = MIRRORED[key];
      if (plainKey) {
        if (value === undefined || value === null) localStorage.removeItem(plainKey);
        else localStorage.setItem(plainKey, String(value));
      }
      base.setItem(key, value);
    },
    reset(): void {
      for (const key of Object.keys(base.listItems?.() ?? {})) {
        if (!MIRRORED[key]) base.removeItem(key);
      }
    },
  };
};
