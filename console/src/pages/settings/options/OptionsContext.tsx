import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Alert, LinearProgress, Stack } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../../hooks/useApiNotify';
import { errorMessage } from '../../../providers/httpClient';
import { fetchOptions, type OptionMap } from './optionFields';

interface OptionsState {
  options: OptionMap;
  /** Reads GET /api/option/ again and returns it (a card re-reads what it saved, as the server normalises values). */
  refresh: () => Promise<OptionMap>;
}

const OptionsContext = createContext<OptionsState | null>(null);

export const useOptions = (): OptionsState => {
  const state = useContext(OptionsContext);
  if (!state) throw new Error('useOptions outside <OptionsLoader>');
  return state;
};

/** Loads the options once for a tab, shows progress meanwhile, and the server's message if the load fails. */
export const OptionsLoader = ({ children }: { children: ReactNode }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [options, setOptions] = useState<OptionMap | undefined>(undefined);
  const [failure, setFailure] = useState('');

  const refresh = useCallback(async () => {
    const fresh = await fetchOptions();
    setOptions(fresh);
    return fresh;
  }, []);

  useEffect(() => {
    let active = true;
    fetchOptions()
      .then((fresh) => active && setOptions(fresh))
      .catch((error) => {
        if (!active) return;
        setFailure(errorMessage(error));
        notify.error(error);
      });
    return () => {
      active = false;
    };
  }, [notify]);

  const value = useMemo(() => (options ? { options, refresh } : null), [options, refresh]);
  if (failure) return <Alert severity="error">{translate('app.options.load_failed', { message: failure })}</Alert>;
  if (!value) {
    return (
      <Stack spacing={1} role="status" aria-label={translate('app.common.loading')}>
        <LinearProgress />
      </Stack>
    );
  }
  return <OptionsContext.Provider value={value}>{children}</OptionsContext.Provider>;
};
