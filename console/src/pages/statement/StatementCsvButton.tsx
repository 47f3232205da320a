import { useState } from 'react';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import { useListContext, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { getStoredUser } from '../../lib/storage';
import { ApiError, buildUrl } from '../../providers/httpClient';
import { translate as translateNow } from '../../providers/i18nProvider';
import { type StatementFilter, statementRequest } from './statementLine';

/** `attachment; filename="statement-user-7.csv"` → `statement-user-7.csv`. */
const fileNameOf = (disposition: string | null, fallback: string): string => /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;

/**
 * Fetches `format=csv` of the statement under the list's current filter (with the session cookie and the New-API-User
 * header every console call carries, which a plain link could not send) and saves it under the server's file name.
 * A refusal comes back as the JSON envelope and is shown as the server words it.
 */
const downloadCsv = async (filter: StatementFilter): Promise<void> => {
  const { path, query } = statementRequest(filter);
  const headers = new Headers({ Accept: 'text/csv, application/json' });
  const user = getStoredUser();
  if (user) headers.set('New-API-User', String(user.id));
  const response = await fetch(buildUrl(path, { ...query, format: 'csv' }), { headers, credentials: 'include' });
  if ((response.headers.get('content-type') ?? '').includes('application/json') || !response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new ApiError(body.message || translateNow('ra.notification.http_error'), response.status, body);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(response.headers.get('content-disposition'), 'statement.csv');
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
};

/** The list toolbar's "Download CSV": every line under the current filters, not only the page on screen. */
export const StatementCsvButton = ({ userId }: { userId?: number }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const { filterValues } = useListContext();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      await downloadCsv({ ...(filterValues as StatementFilter), user_id: userId });
      notify.success('app.statement.downloaded');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button size="small" variant="outlined" startIcon={<DownloadIcon />} onClick={download} disabled={busy}>
      {translate(busy ? 'app.statement.downloading' : 'app.statement.download_csv')}
    </Button>
  );
};
