import { useSyncExternalStore } from 'react';
import { getStoredStatus, setStoredStatus } from '../lib/storage';
import type { PublicStatus } from '../lib/types';
import { apiRequest } from './httpClient';

/**
 * The public status (`GET /api/status`), fetched once at start and kept in localStorage `status`.
 * Until the answer arrives, the last stored copy is used, so a reload never flashes the defaults.
 */
let current: PublicStatus = getStoredStatus();
let loadFailed = false;
const listeners = new Set<() => void>();

const emit = () => listeners.forEach((listener) => listener());

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export const loadStatus = async (): Promise<void> => {
  try {
    const status = await apiRequest<PublicStatus>('/api/status');
    current = status ?? {};
    loadFailed = false;
    setStoredStatus(current);
  } catch {
    loadFailed = true;
  }
  emit();
};

export const useStatus = (): PublicStatus => useSyncExternalStore(subscribe, () => current);

export const useStatusLoadFailed = (): boolean => useSyncExternalStore(subscribe, () => loadFailed);
