import { useEffect, useState, type FormEvent } from 'react';
import { Box, Button, Card, CardContent, CardHeader, Stack, TextField } from '@mui/material';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import RedeemIcon from '@mui/icons-material/Redeem';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useApiData } from '../../hooks/useApiData';
import { useApiNotify } from '../../hooks/useApiNotify';
import { renderQuota } from '../../lib/quota';
import type { User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';
import { StatList } from '../settings/StatList';
import { OnlineTopUpCard } from './OnlineTopUpCard';
import { TopUpOrderHistory } from './TopUpOrderHistory';

/** The wallet: the balance, redeeming a code, online top-up through Epay and one's top-up orders. */
const TopUpContent = () => {
  const translate = useTranslate();
  const status = useStatus();
  const notify = useApiNotify();
  const self = useApiData<User>('/api/user/self');
  const [code, setCode] = useState('');
  const [redeeming, setRedeeming] = useState(false);
  const topUpLink = (status.top_up_link ?? '').trim();
  const [ordersVersion, setOrdersVersion] = useState(0);
  const { reload } = self;

  // Back from the gateway's tab: the payment may have been confirmed meanwhile.
  useEffect(() => {
    const refresh = () => {
      reload();
      setOrdersVersion((value) => value + 1);
    };
    window.addEventListener('focus', refresh);
    return () => window.removeEventListener('focus', refresh);
  }, [reload]);

  const redeem = async (event: FormEvent) => {
    event.preventDefault();
    const key = code.trim();
    if (!key) {
      notify.failure('app.topup.code_required');
      return;
    }
    setRedeeming(true);
    try {
      const added = await apiRequest<number>('/api/user/topup', { method: 'POST', body: { key } });
      notify.success('app.topup.redeemed', { amount: renderQuota(Number(added ?? 0), status) });
      setCode('');
      self.reload();
    } catch (error) {
      notify.error(error);
    } finally {
      setRedeeming(false);
    }
  };

  const user = self.data;
  const loadingValue = translate('app.common.loading');
  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.topup')} />
      <Stack spacing={2}>
        <Card>
          <CardHeader
            title={translate('app.topup.balance_title')}
            action={
              <Button
                component={Link}
                to="/statement"
                size="small"
                startIcon={<ReceiptLongIcon />}
                title={translate('app.statement.open_hint')}
              >
                {translate('app.statement.open')}
              </Button>
            }
          />
          <CardContent>
            <StatList
              stats={[
                {
                  label: translate('app.topup.balance'),
                  value: user ? renderQuota(user.quota, status) : loadingValue,
                  testId: 'topup-balance',
                },
                { label: translate('app.topup.used'), value: user ? renderQuota(user.used_quota, status) : loadingValue },
                { label: translate('app.topup.requests'), value: user ? user.request_count : loadingValue },
              ]}
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader title={translate('app.topup.redeem_title')} />
          <CardContent>
            <Stack
              component="form"
              onSubmit={redeem}
              direction={{ xs: 'column', sm: 'row' }}
              spacing={2}
              sx={{ alignItems: { sm: 'center' } }}
            >
              <TextField
                size="small"
                label={translate('app.topup.code')}
                placeholder={translate('app.topup.code_placeholder')}
                value={code}
                onChange={(event) => setCode(event.target.value)}
                disabled={redeeming}
                sx={{ flexGrow: 1, maxWidth: { sm: 480 } }}
              />
              <Button type="submit" variant="contained" startIcon={<RedeemIcon />} disabled={redeeming}>
                {translate(redeeming ? 'app.topup.redeeming' : 'app.topup.redeem')}
              </Button>
              {topUpLink ? (
                <Button variant="outlined" startIcon={<OpenInNewIcon />} href={topUpLink} target="_blank" rel="noopener noreferrer">
                  {translate('app.topup.get_code')}
                </Button>
              ) : null}
            </Stack>
          </CardContent>
        </Card>
        <OnlineTopUpCard status={status} onOrdered={() => setOrdersVersion((value) => value + 1)} />
        <TopUpOrderHistory status={status} version={ordersVersion} />
      </Stack>
    </Box>
  );
};

export const TopUpPage = () => (
  <Authenticated>
    <TopUpContent />
  </Authenticated>
);
