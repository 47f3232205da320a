import { useSyncExternalStore } from 'react';
import { getStoredUser, USER_CHANGED_EVENT, USER_KEY } from '../lib/storage';
import type { SessionUser } from '../lib/types';

let cachedRaw: string | null = null;
let cachedUser: SessionUser | null = null;

const snapshot = (): SessionUser | null => {
  const raw = localStorage.getItem(USER_KEY);
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    cachedUser = getStoredUser();
  }
  return cachedUser;
};

const subscribe = (listener: () => void) => {
  const onStorage = (event: StorageEvent) => {
    if (event.key === USER_KEY || event.key === null) listener();
  };
  window.addEventListener(USER_CHANGED_EVENT, listener);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(USER_CHANGED_EVENT, listener);
    window.removeEventListener('storage', onStorage);
  };
};

/** The locally stored login (localStorage `user`), re-rendering on login, logout and other tabs. */
export const useSessionUser = (): SessionUser | null => useSyncExternalStore(subscribe, snapshot);
