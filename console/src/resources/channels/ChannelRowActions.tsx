import { useState } from 'react';
import { Button, ButtonGroup, IconButton, Menu, MenuItem, Stack } from '@mui/material';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import { Confirm, useDataProvider, useRecordContext, useRedirect, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import {
  CHANNEL_STATUS_DISABLED,
  CHANNEL_STATUS_ENABLED,
  type Channel,
  copyChannel,
  patchChannel,
  testChannel,
  updateChannelBalance,
} from '../../providers/endpoints/channelEndpoints';
import { splitList } from './channelForm';

/** Test (the default model, or one of the channel's models from the picker), enable or disable, edit, and a menu with the rest. */
export const ChannelRowActions = () => {
  const channel = useRecordContext<Channel>();
  const translate = useTranslate();
  const refresh = useRefresh();
  const redirect = useRedirect();
  const notify = useApiNotify();
  const dataProvider = useDataProvider();
  const [modelAnchor, setModelAnchor] = useState<HTMLElement | null>(null);
  const [moreAnchor, setMoreAnchor] = useState<HTMLElement | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!channel) return null;

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
      refresh();
    } catch (error) {
      notify.error(error);
      refresh();
    } finally {
      setBusy(false);
    }
  };

  const test = (model?: string) =>
    run(async () => {
      const seconds = await testChannel(channel.id, model);
      notify.success('app.channels.test_success', { name: channel.name, seconds: seconds.toFixed(2) });
    });

  const enabled = channel.status === CHANNEL_STATUS_ENABLED;
  const models = splitList(channel.models);

  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
      <ButtonGroup size="small" variant="outlined" disabled={busy}>
        <Button onClick={() => void test()}>{translate('app.channels.test')}</Button>
        <Button aria-label={translate('app.channels.test_pick_model')} onClick={(event) => setModelAnchor(event.currentTarget)}>
          <ArrowDropDownIcon fontSize="small" />
        </Button>
      </ButtonGroup>
      <Menu open={modelAnchor !== null} anchorEl={modelAnchor} onClose={() => setModelAnchor(null)}>
        {models.map((model) => (
          <MenuItem
            key={model}
            onClick={() => {
              setModelAnchor(null);
              void test(model);
            }}
          >
            {model}
          </MenuItem>
        ))}
      </Menu>
      {enabled ? (
        <Button
          size="small"
          color="warning"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await patchChannel(channel.id, { status: CHANNEL_STATUS_DISABLED });
              notify.success('app.common.operation_success');
            })
          }
        >
          {translate('app.channels.disable')}
        </Button>
      ) : (
        <Button
          size="small"
          color="success"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await patchChannel(channel.id, { status: CHANNEL_STATUS_ENABLED });
              notify.success('app.common.operation_success');
            })
          }
        >
          {translate('app.channels.enable')}
        </Button>
      )}
      <Button size="small" disabled={busy} onClick={() => redirect(`/channel/edit/${channel.id}`)}>
        {translate('app.channels.edit')}
      </Button>
      <IconButton
        size="small"
        aria-label={translate('app.channels.more')}
        disabled={busy}
        onClick={(event) => setMoreAnchor(event.currentTarget)}
      >
        <MoreVertIcon fontSize="small" />
      </IconButton>
      <Menu open={moreAnchor !== null} anchorEl={moreAnchor} onClose={() => setMoreAnchor(null)}>
        <MenuItem
          onClick={() => {
            setMoreAnchor(null);
            void run(async () => {
              const balance = await updateChannelBalance(channel.id);
              notify.success('app.channels.balance_success', { name: channel.name, balance: balance.toFixed(2) });
            });
          }}
        >
          {translate('app.channels.update_balance')}
        </MenuItem>
        <MenuItem
          onClick={() => {
            setMoreAnchor(null);
            void run(async () => {
              await copyChannel(channel.id);
              notify.success('app.channels.copied');
            });
          }}
        >
          {translate('app.channels.copy')}
        </MenuItem>
        <MenuItem
          sx={{ color: 'error.main' }}
          onClick={() => {
            setMoreAnchor(null);
            setConfirmDelete(true);
          }}
        >
          {translate('app.channels.delete')}
        </MenuItem>
      </Menu>
      <Confirm
        isOpen={confirmDelete}
        title="app.channels.delete_title"
        content="app.channels.delete_content"
        translateOptions={{ name: channel.name }}
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => {
          setConfirmDelete(false);
          void run(async () => {
            await dataProvider.delete('channel', { id: channel.id, previousData: channel });
            notify.success('app.channels.deleted');
          });
        }}
        onClose={() => setConfirmDelete(false)}
      />
    </Stack>
  );
};
