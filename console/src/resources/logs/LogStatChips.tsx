import { useEffect, useState } from 'react';
import { Chip, Stack } from '@mui/material';
import { useListContext, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { renderQuota } from '../../lib/quota';
import type { PublicStatus } from '../../lib/types';
import { fetchLogStat, type LogEntry, type LogListFilter, type LogStat } from '../../providers/endpoints/logEndpoints';
import { useStatus } from '../../providers/statusStore';

/** Two decimals, or six when a small positive amount would read $0.00. */
const statQuota = (quota: number, status: PublicStatus): string => {
  const shown = renderQuota(quota, status);
  return quota > 0 && /^\$0\.00$/.test(shown) ? renderQuota(quota, status, 6) : shown;
};

/**
 * The summary over the list's filters: consumed quota (consumption rows in the time range), and the requests (RPM)
 * and tokens (TPM) of the last minute. Reloaded whenever the list is (new filters, refresh).
 */
export const LogStatChips = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const { filterValues, data } = useListContext<LogEntry>();
  const [stat, setStat] = useState<LogStat | null>(null);
  const filterKey = JSON.stringify(filterValues ?? {});

  useEffect(() => {
    let active = true;
    fetchLogStat(JSON.parse(filterKey) as LogListFilter)
      .then((answer) => active && setStat(answer))
      .catch((error) => active && notify.error(error));
    return () => {
      active = false;
    };
  }, [filterKey, data, notify]);

  if (!stat) {
    return (
      <Stack direction="row" sx={{ p: 1 }}>
        <Chip size="small" variant="outlined" label={translate('app.logs.stat_loading')} />
      </Stack>
    );
  }
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ p: 1, flexWrap: 'wrap' }} data-testid="log-stat">
      <Chip
        color="primary"
        label={translate('app.logs.stat_quota', { quota: statQuota(stat.quota, status) })}
        data-testid="log-stat-quota"
      />
      <Chip color="secondary" label={translate('app.logs.stat_rpm', { rpm: stat.rpm })} data-testid="log-stat-rpm" />
      <Chip color="success" label={translate('app.logs.stat_tpm', { tpm: stat.tpm })} data-testid="log-stat-tpm" />
    </Stack>
  );
};
