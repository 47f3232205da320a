import { useState } from 'react';
import { Alert, Button, LinearProgress, Stack } from '@mui/material';
import { Confirm, useListContext, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { deleteChannels, deleteDisabledChannels, fixChannelAbilities } from '../../providers/endpoints/channelEndpoints';
import type { RunKind, RunProgress } from './useChannelRun';

/** The selection's bulk action: delete the selected channels (confirmed), then say how many went. */
export const DeleteSelectedButton = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const refresh = useRefresh();
  const { selectedIds, onUnselectItems } = useListContext();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setOpen(false);
    if (selectedIds.length === 0) {
      notify.failure('app.channels.errors.select_first');
      return;
    }
    setBusy(true);
    try {
      const count = await deleteChannels(selectedIds.map(Number));
      notify.success('app.channels.deleted_count', { count });
      onUnselectItems();
      refresh();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="small" color="error" disabled={busy} onClick={() => setOpen(true)}>
        {translate('app.channels.delete_selected')}
      </Button>
      <Confirm
        isOpen={open}
        title="app.channels.delete_selected_title"
        content="app.channels.delete_selected_content"
        translateOptions={{ count: selectedIds.length }}
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => void remove()}
        onClose={() => setOpen(false)}
      />
    </>
  );
};

/** Delete all disabled (confirmed), fix abilities, test all, update all balances; each reports its count. */
export const ChannelToolbarActions = ({ running, onRun }: { running: boolean; onRun: (kind: RunKind) => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const refresh = useRefresh();
  const [confirmDisabled, setConfirmDisabled] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const act = async (name: string, action: () => Promise<void>) => {
    setBusy(name);
    try {
      await action();
      refresh();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <Button size="small" variant="outlined" disabled={running || busy !== null} onClick={() => onRun('test')}>
        {translate('app.channels.test_all')}
      </Button>
      <Button size="small" variant="outlined" disabled={running || busy !== null} onClick={() => onRun('balance')}>
        {translate('app.channels.update_all_balances')}
      </Button>
      <Button
        size="small"
        variant="outlined"
        disabled={busy !== null}
        onClick={() =>
          void act('fix', async () => {
            const count = await fixChannelAbilities();
            notify.success('app.channels.fixed_count', { count });
          })
        }
      >
        {busy === 'fix' ? translate('app.channels.working') : translate('app.channels.fix')}
      </Button>
      <Button size="small" variant="outlined" color="error" disabled={busy !== null} onClick={() => setConfirmDisabled(true)}>
        {busy === 'disabled' ? translate('app.channels.working') : translate('app.channels.delete_disabled')}
      </Button>
      <Confirm
        isOpen={confirmDisabled}
        title="app.channels.delete_disabled_title"
        content="app.channels.delete_disabled_content"
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => {
          setConfirmDisabled(false);
          void act('disabled', async () => {
            const count = await deleteDisabledChannels();
            notify.success('app.channels.deleted_count', { count });
          });
        }}
        onClose={() => setConfirmDisabled(false)}
      />
    </>
  );
};

/** A run's progress bar and counts, then its result, above the list. */
export const RunProgressBanner = ({ progress, onClose }: { progress: RunProgress | null; onClose: () => void }) => {
  const translate = useTranslate();
  if (!progress) return null;
  const args = { done: progress.done, total: progress.total, enabled: progress.enabled, disabled: progress.disabled };
  let text: string;
  if (progress.kind === 'test') {
    text = progress.finished ? translate('app.channels.run.test_done', args) : translate('app.channels.run.test_running', args);
  } else {
    text = progress.finished ? translate('app.channels.run.balance_done', args) : translate('app.channels.run.balance_running', args);
  }
  if (progress.stalled) text = `${text} ${translate('app.channels.run.stalled', { missing: progress.total - progress.done })}`;
  const severity = !progress.finished ? 'info' : progress.stalled || progress.disabled > 0 ? 'warning' : 'success';
  return (
    <Alert severity={severity} onClose={progress.finished ? onClose : undefined} sx={{ mb: 1 }} data-testid="channel-run">
      <Stack spacing={1}>
        <span>{text}</span>
        {!progress.finished && (
          <LinearProgress
            variant="determinate"
            value={progress.total ? (100 * progress.done) / progress.total : 0}
            aria-label={translate('app.channels.run.progress')}
          />
        )}
      </Stack>
    </Alert>
  );
};
