import { createContext, useContext, useState } from 'react';
import { Button, Popover, Stack, Typography } from '@mui/material';
import { Confirm, useDataProvider, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCopy } from '../../hooks/useCopy';
import { REDEMPTION_STATUS_DISABLED, REDEMPTION_STATUS_UNUSED, REDEMPTION_STATUS_USED, type Redemption } from '../../lib/types';
import type { ConsoleDataProvider } from '../../providers/dataProvider';

/** The list's drawer, opened by a row's edit button. */
export const EditDrawerContext = createContext<(id: number) => void>(() => undefined);

/** View and copy the key, delete (confirmed), enable or disable, edit; enabling a used code and editing a code no longer unused are inactive. */
export const RedemptionRowActions = () => {
  const code = useRecordContext<Redemption>();
  const translate = useTranslate();
  const refresh = useRefresh();
  const notify = useApiNotify();
  const copy = useCopy();
  const openEdit = useContext(EditDrawerContext);
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const [viewAnchor, setViewAnchor] = useState<HTMLElement | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!code) return null;

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      notify.success('app.common.operation_success');
      refresh();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  const unused = code.status === REDEMPTION_STATUS_UNUSED;

  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      <Button size="small" onClick={(event) => setViewAnchor(event.currentTarget)}>
        {translate('app.redemptions.view')}
      </Button>
      <Popover
        open={viewAnchor !== null}
        anchorEl={viewAnchor}
        onClose={() => setViewAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      >
        <Typography sx={{ p: 1.5, fontFamily: 'monospace' }}>{code.key}</Typography>
      </Popover>
      <Button size="small" onClick={() => void copy(code.key)}>
        {translate('app.redemptions.copy')}
      </Button>
      <Button size="small" color="error" disabled={busy} onClick={() => setConfirmDelete(true)}>
        {translate('app.redemptions.delete')}
      </Button>
      {unused ? (
        <Button
          size="small"
          color="warning"
          disabled={busy}
          onClick={() => run(() => dataProvider.setRedemptionStatus(Number(code.id), REDEMPTION_STATUS_DISABLED))}
        >
          {translate('app.redemptions.disable')}
        </Button>
      ) : (
        <Button
          size="small"
          color="success"
          disabled={busy || code.status === REDEMPTION_STATUS_USED}
          onClick={() => run(() => dataProvider.setRedemptionStatus(Number(code.id), REDEMPTION_STATUS_UNUSED))}
        >
          {translate('app.redemptions.enable')}
        </Button>
      )}
      <Button size="small" disabled={busy || !unused} onClick={() => openEdit(Number(code.id))}>
        {translate('app.redemptions.edit')}
      </Button>
      <Confirm
        isOpen={confirmDelete}
        title="app.redemptions.delete_title"
        content="app.redemptions.delete_content"
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => {
          setConfirmDelete(false);
          void run(() => dataProvider.delete('redemption', { id: code.id, previousData: code }));
        }}
        onClose={() => setConfirmDelete(false)}
      />
    </Stack>
  );
};
