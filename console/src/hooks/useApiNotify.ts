import { useCallback, useMemo } from 'react';
import { useNotify } from 'react-admin';
import { ApiError, errorMessage } from '../providers/httpClient';

/** Toasts for API outcomes: server messages as they are, our own texts through their i18n keys. */
export const useApiNotify = () => {
  const notify = useNotify();

  const success = useCallback(
    (key: string, args?: Record<string, unknown>) => notify(key, { type: 'success', messageArgs: args }),
    [notify],
  );
  const info = useCallback((key: string, args?: Record<string, unknown>) => notify(key, { type: 'info', messageArgs: args }), [notify]);
  const failure = useCallback((key: string, args?: Record<string, unknown>) => notify(key, { type: 'error', messageArgs: args }), [notify]);
  const error = useCallback(
    (cause: unknown) => {
      const message = errorMessage(cause);
      const type = cause instanceof ApiError ? cause.severity : 'error';
      notify(message, { type, messageArgs: { _: message } });
    },
    [notify],
  );

  return useMemo(() => ({ success, info, failure, error }), [success, info, failure, error]);
};
