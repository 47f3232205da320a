import { useEffect, useState } from 'react';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';

export interface OperatorContent {
  /** The last known text: the stored copy until the server answers, then the answer; null while nothing is known. */
  content: string | null;
  loaded: boolean;
  failed: boolean;
}

/**
 * An operator-written page (`GET /api/home_page_content` or `/api/about`): shown at once from the copy kept in
 * localStorage under new-api's key, then replaced by the server's answer; a failure is toasted with the server's words.
 */
export const useOperatorContent = (path: string, storageKey: string): OperatorContent => {
  const notify = useApiNotify();
  const [state, setState] = useState<OperatorContent>(() => ({ content: localStorage.getItem(storageKey), loaded: false, failed: false }));

  useEffect(() => {
    let active = true;
    apiRequest<string>(path)
      .then((answer) => {
        if (!active) return;
        const content = typeof answer === 'string' ? answer : '';
        localStorage.setItem(storageKey, content);
        setState({ content, loaded: true, failed: false });
      })
      .catch((error) => {
        if (!active) return;
        notify.error(error);
        setState((previous) => ({ ...previous, loaded: true, failed: true }));
      });
    return () => {
      active = false;
    };
  }, [path, storageKey, notify]);

  return state;
};

/** new-api frames the content instead of rendering it when it is an https address. */
export const frameAddressOf = (content: string): string | null => {
  const trimmed = content.trim();
  return trimmed.startsWith('https://') && !/\s/.test(trimmed) ? trimmed : null;
};
