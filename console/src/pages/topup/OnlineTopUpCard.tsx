import { useEffect, useState } from 'react';
import {
  Box,
  Button,
  Card,
  CardContent,
  CardHeader,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import type { PublicStatus } from '../../lib/types';
import { type PaymentMethod, postPaymentForm, quoteAmount, requestPayment, TopUpError } from './epayForm';

const QUOTE_DELAY_MS = 300;

/** What the field holds as the amount to order: an integer, raised to 1 (new-api's UI). */
const effectiveAmount = (text: string): number => {
  const value = Math.trunc(Number(text));
  return Number.isFinite(value) && value >= 1 ? value : 1;
};

const METHODS: Array<{ method: PaymentMethod; label: string; color: 'primary' | 'success' }> = [
  { method: 'zfb', label: 'app.topup_online.alipay', color: 'primary' },
  { method: 'wx', label: 'app.topup_online.wxpay', color: 'success' },
];

/**
 * Online top-up through the Epay gateway: an amount, its payable money (quoted by the server as it is typed), a
 * button per payment method, a confirmation dialog with the amount and the money, then the signed form is posted
 * to the gateway in a new tab. `onOrdered` lets the page show the new pending order.
 */
export const OnlineTopUpCard = ({ status, onOrdered }: { status: PublicStatus; onOrdered: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const minTopUp = Math.max(1, Number(status.min_topup ?? 1) || 1);
  const inCurrency = status.display_in_currency !== false;
  const [amountText, setAmountText] = useState(String(minTopUp));
  const [money, setMoney] = useState('0.00');
  const [method, setMethod] = useState<PaymentMethod | null>(null);
  const [paying, setPaying] = useState(false);
  const amount = effectiveAmount(amountText);

  useEffect(() => {
    let active = true;
    const timer = window.setTimeout(() => {
      quoteAmount(amount)
        .then((quoted) => active && setMoney(quoted))
        .catch((error: unknown) => {
          if (!active) return;
          setMoney('0.00');
          if (error instanceof TopUpError) notify.failure('app.topup_online.amount_error', { message: error.message });
          else notify.error(error);
        });
    }, QUOTE_DELAY_MS);
    return () => {
      active = false;
      window.clearTimeout(timer);
    };
  }, [amount, notify]);

  const open = (chosen: PaymentMethod) => {
    if (!status.enable_online_topup) {
      notify.failure('app.topup_online.disabled');
      return;
    }
    if (amount < minTopUp) {
      notify.failure('app.topup_online.below_min', { min: minTopUp });
      return;
    }
    setMethod(chosen);
  };

  const pay = async () => {
    if (!method) return;
    setPaying(true);
    try {
      const form = await requestPayment(amount, method);
      setMethod(null);
      notify.info('app.topup_online.opened');
      postPaymentForm(form.url, form.params);
      onOrdered();
    } catch (error) {
      setMethod(null);
      if (error instanceof TopUpError) notify.failure(error.message, { _: error.message });
      else notify.error(error);
    } finally {
      setPaying(false);
    }
  };

  const renderedMoney = translate('app.topup_online.money', { money });
  const chosenLabel = METHODS.find((entry) => entry.method === method)?.label;
  return (
    <Card>
      <CardHeader title={translate('app.topup_online.title')} />
      <CardContent>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'flex-start' } }}>
          <TextField
            size="small"
            type="number"
            label={translate('app.topup_online.amount')}
            value={amountText}
            onChange={(event) => setAmountText(event.target.value)}
            helperText={translate(inCurrency ? 'app.topup_online.amount_hint_currency' : 'app.topup_online.amount_hint_quota', {
              min: minTopUp,
            })}
            slotProps={{ htmlInput: { min: 1, step: 1 } }}
            sx={{ maxWidth: { sm: 240 } }}
          />
          <Box sx={{ minWidth: 140, pt: { sm: 1 } }}>
            <Typography variant="body2" color="text.secondary" component="span">
              {translate('app.topup_online.payable_prefix')}
            </Typography>
            <Typography component="span" sx={{ fontWeight: 600 }} data-testid="topup-payable">
              {renderedMoney}
            </Typography>
          </Box>
          <Stack direction="row" spacing={1}>
            {METHODS.map((entry) => (
              <Button key={entry.method} variant="contained" color={entry.color} onClick={() => open(entry.method)} disabled={paying}>
                {translate(entry.label)}
              </Button>
            ))}
          </Stack>
        </Stack>
      </CardContent>
      <Dialog
        open={method !== null}
        onClose={() => !paying && setMethod(null)}
        aria-labelledby="topup-confirm-title"
        fullWidth
        maxWidth="xs"
      >
        <DialogTitle id="topup-confirm-title">{translate('app.topup_online.confirm_title')}</DialogTitle>
        <DialogContent>
          <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 2, rowGap: 1, m: 0 }}>
            <Typography component="dt" color="text.secondary">
              {translate('app.topup_online.confirm_amount')}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }} data-testid="topup-confirm-amount">
              {amount}
            </Typography>
            <Typography component="dt" color="text.secondary">
              {translate('app.topup_online.confirm_money')}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }} data-testid="topup-confirm-money">
              {renderedMoney}
            </Typography>
            <Typography component="dt" color="text.secondary">
              {translate('app.topup_online.confirm_method')}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              {chosenLabel ? translate(chosenLabel) : ''}
            </Typography>
          </Box>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setMethod(null)} disabled={paying}>
            {translate('app.common.cancel')}
          </Button>
          <Button variant="contained" onClick={() => void pay()} disabled={paying}>
            {translate(paying ? 'app.topup_online.paying' : 'app.topup_online.confirm')}
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
};
