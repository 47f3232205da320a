import { useCallback, useEffect, useState } from 'react';
import { apiRequest, type QueryValue } from '../providers/httpClient';
import { useApiNotify } from './useApiNotify';

/** Loads one GET answer's data for a screen; failures become error toasts. */
export const useApiData = <T>(path: string, query?: Record<string, QueryValue>) => {
  const notify = useApiNotify();
  const [data, setData] = useState<T | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  const queryKey = JSON.stringify(query ?? {});

  useEffect(() => {
    let active = true;
    setLoading(true);
    apiRequest<T>(path, { query: JSON.parse(queryKey) as Record<string, QueryValue> })
      .then((answer) => active && setData(answer))
      .catch((error) => active && notify.error(error))
      .finally(() => active && setLoading(false));
    return () => {
      active = false;
    };
  }, [path, queryKey, version, notify]);

  const reload = useCallback(() => setVersion((value) => value + 1), []);
  return { data, loading, reload };
};
