import { useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';
import { ClearLogs } from './options/ClearLogs';
import { OptionCard, type CardTools } from './options/OptionCard';
import { OptionsLoader } from './options/OptionsContext';
import type { OptionField } from './options/optionFields';

const GENERAL: OptionField[] = [
  { key: 'TopUpLink', type: 'text', help: true },
  { key: 'ChatLink', type: 'text', help: true },
  { key: 'ChatLink2', type: 'text', help: true },
  { key: 'QuotaPerUnit', type: 'number', min: 0, help: true },
  { key: 'RetryTimes', type: 'number', min: 0, integer: true },
  { key: 'StreamCacheQueueLength', type: 'number', min: 0, integer: true },
  { key: 'DisplayInCurrencyEnabled', type: 'switch' },
  { key: 'DisplayTokenStatEnabled', type: 'switch' },
  { key: 'DefaultCollapseSidebar', type: 'switch' },
];

const DRAWING: OptionField[] = [
  { key: 'DrawingEnabled', type: 'switch' },
  { key: 'MjNotifyEnabled', type: 'switch' },
  { key: 'MjAccountFilterEnabled', type: 'switch' },
  { key: 'MjForwardUrlEnabled', type: 'switch' },
  { key: 'MjModeClearEnabled', type: 'switch' },
  { key: 'MjActionCheckSuccessEnabled', type: 'switch' },
];

const SENSITIVE: OptionField[] = [
  { key: 'CheckSensitiveEnabled', type: 'switch' },
  { key: 'CheckSensitiveOnPromptEnabled', type: 'switch' },
  { key: 'CheckSensitiveOnCompletionEnabled', type: 'switch' },
  { key: 'StopOnSensitiveEnabled', type: 'switch' },
  { key: 'SensitiveWords', type: 'text', rows: 4, help: true },
];

const LOG: OptionField[] = [
  { key: 'LogConsumeEnabled', type: 'switch' },
  { key: 'LogRetentionDays', type: 'number', min: 0, integer: true, help: true },
];

const DASHBOARD: OptionField[] = [
  { key: 'DataExportEnabled', type: 'switch' },
  { key: 'DataExportInterval', type: 'number', min: 1, integer: true, help: true },
  { key: 'DataExportDefaultTime', type: 'choice', choices: ['hour', 'day', 'week'] },
];

const MONITORING: OptionField[] = [
  { key: 'ChannelDisableThreshold', type: 'number', min: 0, help: true },
  { key: 'QuotaRemindThreshold', type: 'number', min: 0, integer: true, help: true },
  { key: 'AutomaticDisableChannelEnabled', type: 'switch' },
  { key: 'AutomaticEnableChannelEnabled', type: 'switch' },
];

const QUOTA: OptionField[] = [
  { key: 'QuotaForNewUser', type: 'number', min: 0, integer: true },
  { key: 'PreConsumedQuota', type: 'number', min: 0, integer: true, help: true },
  { key: 'QuotaForInviter', type: 'number', min: 0, integer: true },
  { key: 'QuotaForInvitee', type: 'number', min: 0, integer: true },
];

const RATIOS: OptionField[] = [
  { key: 'ModelPrice', type: 'json', help: true },
  { key: 'ModelRatio', type: 'json', help: true },
  { key: 'CompletionRatio', type: 'json', help: true },
  { key: 'GroupRatio', type: 'json', help: true },
  { key: 'UserUsableGroups', type: 'json', help: true },
];

/** The super admin's operation settings: general, drawing, sensitive words, log, data dashboard, monitoring, quota, ratios. */
export const OperationTab = () => (
  <OptionsLoader>
    <Stack spacing={2}>
      <OptionCard id="general" fields={GENERAL} />
      <OptionCard id="drawing" fields={DRAWING} />
      <OptionCard id="sensitive" fields={SENSITIVE} />
      <OptionCard id="log" fields={LOG}>
        <ClearLogs />
      </OptionCard>
      <OptionCard id="dashboard" fields={DASHBOARD} />
      <OptionCard id="monitoring" fields={MONITORING} />
      <OptionCard id="quota" fields={QUOTA} />
      <OptionCard id="ratio" fields={RATIOS} extra={(tools) => <ResetModelRatio {...tools} />} />
    </Stack>
  </OptionsLoader>
);

/** POST /api/option/rest_model_ratio after a confirmation, then shows the restored ModelRatio. */
const ResetModelRatio = ({ busy, setBusy, resync }: CardTools) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [open, setOpen] = useState(false);

  const reset = async () => {
    setOpen(false);
    setBusy(true);
    try {
      await apiRequest('/api/option/rest_model_ratio', { method: 'POST' });
      await resync(['ModelRatio']);
      notify.success('app.options.ratio_reset_done');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button variant="outlined" color="error" onClick={() => setOpen(true)} disabled={busy}>
        {translate('app.options.ratio_reset')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="xs" fullWidth>
        <DialogTitle>{translate('app.options.ratio_reset')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{translate('app.options.ratio_reset_confirm')}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{translate('app.common.cancel')}</Button>
          <Button color="error" variant="contained" onClick={reset}>
            {translate('app.options.ratio_reset')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
};
