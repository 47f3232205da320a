import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Box, Button, Card, CardContent, MenuItem, Stack, TextField } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useApiData } from '../../hooks/useApiData';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useSessionUser } from '../../hooks/useSessionUser';
import { renderQuota } from '../../lib/quota';
import { ROLE_ADMIN, type User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';
import { StatList } from '../settings/StatList';
import { DetailCharts } from './DetailCharts';
import {
  buildSeries,
  defaultRange,
  fromInputValue,
  GRANULARITIES,
  type Granularity,
  perMinute,
  type QuotaDataRow,
  toGranularity,
  toInputValue,
} from './quotaDataSeries';

interface Query {
  start: number;
  end: number;
  username: string;
}

/**
 * The data dashboard (new-api's Detail page) over `GET /api/data/` (admins, optionally one username) or
 * `GET /api/data/self`: the account's totals, the range's quota, tokens and requests with average RPM and TPM,
 * and the charts. The hourly rows are fetched for the range and regrouped here by hour, day or week, so changing
 * the granularity needs no new request; the default granularity and range come from DataExportDefaultTime.
 */
const DetailContent = () => {
  const translate = useTranslate();
  const status = useStatus();
  const notify = useApiNotify();
  const isAdmin = (useSessionUser()?.role ?? 0) >= ROLE_ADMIN;
  const self = useApiData<User>('/api/user/self');
  const defaultGranularity = toGranularity(status.data_export_default_time);
  const [granularity, setGranularity] = useState<Granularity>(defaultGranularity);
  const [startInput, setStartInput] = useState('');
  const [endInput, setEndInput] = useState('');
  const [username, setUsername] = useState('');
  const [query, setQuery] = useState<Query>({ start: 0, end: 0, username: '' });
  /** Set once the person changed a filter: a status answer arriving later then no longer resets the form. */
  const touched = useRef(false);
  const [rows, setRows] = useState<QuotaDataRow[]>([]);
  const [loading, setLoading] = useState(false);
  /** Only the latest query's answer is shown, whatever order the answers arrive in. */
  const latest = useRef(0);

  const load = useCallback(
    async (next: Query) => {
      const sequence = ++latest.current;
      setLoading(true);
      try {
        const answer = isAdmin
          ? await apiRequest<QuotaDataRow[]>('/api/data/', {
              query: { username: next.username, start_timestamp: next.start, end_timestamp: next.end },
            })
          : await apiRequest<QuotaDataRow[]>('/api/data/self', { query: { start_timestamp: next.start, end_timestamp: next.end } });
        if (sequence !== latest.current) return;
        setRows(Array.isArray(answer) ? answer : []);
        setQuery(next);
      } catch (error) {
        if (sequence === latest.current) notify.error(error);
      } finally {
        if (sequence === latest.current) setLoading(false);
      }
    },
    [isAdmin, notify],
  );

  // The defaults follow DataExportDefaultTime, also when /api/status answers after the screen opened.
  useEffect(() => {
    if (touched.current) return;
    // Whole minutes, as the inputs show them, so the averages are over the range the inputs say.
    const range = defaultRange(defaultGranularity, Math.floor(Date.now() / 60_000) * 60);
    setGranularity(defaultGranularity);
    setStartInput(toInputValue(range.start));
    setEndInput(toInputValue(range.end));
    void load({ ...range, username: '' });
  }, [defaultGranularity, load]);

  const edit = (set: (value: string) => void) => (event: { target: { value: string } }) => {
    touched.current = true;
    set(event.target.value);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    touched.current = true;
    const start = fromInputValue(startInput);
    const end = fromInputValue(endInput);
    if (start === null || end === null) {
      notify.failure('app.detail.invalid_range');
      return;
    }
    void load({ start, end, username: username.trim() });
    self.reload();
  };

  const series = useMemo(() => buildSeries(rows, granularity), [rows, granularity]);
  const user = self.data;
  const loadingValue = translate('app.common.loading');

  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.detail')} />
      <Stack spacing={2}>
        <Card>
          <CardContent>
            <Box
              component="form"
              onSubmit={submit}
              aria-label={translate('app.menu.detail')}
              sx={{
                display: 'grid',
                gap: 2,
                alignItems: 'center',
                gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, minmax(0, 1fr))', md: 'repeat(auto-fit, minmax(180px, 1fr))' },
              }}
            >
              <TextField
                size="small"
                type="datetime-local"
                label={translate('app.detail.start_time')}
                value={startInput}
                onChange={edit(setStartInput)}
                slotProps={{ inputLabel: { shrink: true } }}
              />
              <TextField
                size="small"
                type="datetime-local"
                label={translate('app.detail.end_time')}
                value={endInput}
                onChange={edit(setEndInput)}
                slotProps={{ inputLabel: { shrink: true } }}
              />
              <TextField
                select
                size="small"
                label={translate('app.detail.granularity')}
                value={granularity}
                onChange={edit((value) => setGranularity(toGranularity(value)))}
              >
                {GRANULARITIES.map((value) => (
                  <MenuItem key={value} value={value}>
                    {translate(`app.detail.${value}`)}
                  </MenuItem>
                ))}
              </TextField>
              {isAdmin ? (
                <TextField
                  size="small"
                  label={translate('app.detail.username')}
                  placeholder={translate('app.detail.username_placeholder')}
                  value={username}
                  onChange={edit(setUsername)}
                />
              ) : null}
              <Button type="submit" variant="contained" startIcon={<SearchIcon />} disabled={loading}>
                {translate('app.detail.query')}
              </Button>
            </Box>
          </CardContent>
        </Card>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, minmax(0, 1fr))' } }}>
          <Card>
            <CardContent>
              <StatList
                stats={[
                  {
                    label: translate('app.detail.balance'),
                    value: user ? renderQuota(user.quota, status) : loadingValue,
                    testId: 'detail-balance',
                  },
                  { label: translate('app.detail.used_quota'), value: user ? renderQuota(user.used_quota, status) : loadingValue },
                  { label: translate('app.detail.request_count'), value: user ? user.request_count : loadingValue },
                ]}
              />
            </CardContent>
          </Card>
          <Card>
            <CardContent>
              <StatList
                stats={[
                  {
                    label: translate('app.detail.stat_quota'),
                    value: renderQuota(series.totals.quota, status),
                    testId: 'detail-stat-quota',
                  },
                  { label: translate('app.detail.stat_tokens'), value: series.totals.tokens, testId: 'detail-stat-tokens' },
                  { label: translate('app.detail.stat_count'), value: series.totals.count, testId: 'detail-stat-count' },
                ]}
              />
            </CardContent>
          </Card>
          <Card>
            <CardContent>
              <StatList
                stats={[
                  {
                    label: translate('app.detail.avg_rpm'),
                    value: perMinute(series.totals.count, query.start, query.end),
                    testId: 'detail-avg-rpm',
                  },
                  {
                    label: translate('app.detail.avg_tpm'),
                    value: perMinute(series.totals.tokens, query.start, query.end),
                    testId: 'detail-avg-tpm',
                  },
                ]}
              />
            </CardContent>
          </Card>
        </Box>
        <DetailCharts series={series} status={status} />
      </Stack>
    </Box>
  );
};

export const DetailPage = () => (
  <Authenticated>
    <DetailContent />
  </Authenticated>
);
