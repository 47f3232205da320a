import { createContext, useContext, useState } from 'react';
import { Button, ButtonGroup, Menu, MenuItem, Popover, Stack, Typography } from '@mui/material';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import { Confirm, useDataProvider, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCopy } from '../../hooks/useCopy';
import type { ConsoleDataProvider } from '../../providers/dataProvider';
import { TOKEN_STATUS_DISABLED, TOKEN_STATUS_ENABLED, type Token } from '../../providers/endpoints/tokenEndpoints';
import { useStatus } from '../../providers/statusStore';
import { CHAT_CLIENTS, chatUrl, type ChatClient } from './chatLinks';

/** The list's drawer, opened by a row's edit button. */
export const EditDrawerContext = createContext<(id: number) => void>(() => undefined);

/** "Chat" opens ChatGPT Next Web; the arrow offers every client, the web chats only when their link is set. */
const ChatButton = ({ token }: { token: Token }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const open = (client: ChatClient) => {
    setMenuAnchor(null);
    const url = chatUrl(client, token.key, status, window.location.origin);
    if (url === null) {
      notify.failure('app.tokens.no_chat_link');
      return;
    }
    window.open(url, '_blank');
  };
  return (
    <>
      <ButtonGroup size="small" variant="text" color="secondary">
        <Button onClick={() => open('next')}>{translate('app.tokens.chat')}</Button>
        <Button
          aria-label={translate('app.tokens.chat_menu')}
          aria-haspopup="menu"
          onClick={(event) => setMenuAnchor(event.currentTarget)}
          sx={{ px: 0, minWidth: 28 }}
        >
          <ArrowDropDownIcon fontSize="small" />
        </Button>
      </ButtonGroup>
      <Menu anchorEl={menuAnchor} open={menuAnchor !== null} onClose={() => setMenuAnchor(null)}>
        {CHAT_CLIENTS.map(({ client, labelKey, needs }) => (
          <MenuItem key={client} disabled={needs !== undefined && !status[needs]} onClick={() => open(client)}>
            {translate(labelKey)}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
};

/** View and copy the key (with `sk-`), chat, delete (confirmed), enable or disable, edit. */
export const TokenRowActions = () => {
  const token = useRecordContext<Token>();
  const translate = useTranslate();
  const refresh = useRefresh();
  const notify = useApiNotify();
  const copy = useCopy();
  const openEdit = useContext(EditDrawerContext);
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const [viewAnchor, setViewAnchor] = useState<HTMLElement | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!token) return null;
  const key = `sk-${token.key}`;

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

  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
      <Button size="small" onClick={(event) => setViewAnchor(event.currentTarget)}>
        {translate('app.tokens.view')}
      </Button>
      <Popover
        open={viewAnchor !== null}
        anchorEl={viewAnchor}
        onClose={() => setViewAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      >
        <Typography data-testid="token-key" sx={{ p: 1.5, fontFamily: 'monospace', wordBreak: 'break-all', maxWidth: '90vw' }}>
          {key}
        </Typography>
      </Popover>
      <Button size="small" onClick={() => void copy(key, 'app.tokens.copied')}>
        {translate('app.tokens.copy')}
      </Button>
      <ChatButton token={token} />
      <Button size="small" color="error" disabled={busy} onClick={() => setConfirmDelete(true)}>
        {translate('app.tokens.delete')}
      </Button>
      {token.status === TOKEN_STATUS_ENABLED ? (
        <Button
          size="small"
          color="warning"
          disabled={busy}
          onClick={() => run(() => dataProvider.setTokenStatus(token.id, TOKEN_STATUS_DISABLED))}
        >
          {translate('app.tokens.disable')}
        </Button>
      ) : (
        <Button
          size="small"
          color="success"
          disabled={busy}
          onClick={() => run(() => dataProvider.setTokenStatus(token.id, TOKEN_STATUS_ENABLED))}
        >
          {translate('app.tokens.enable')}
        </Button>
      )}
      <Button size="small" disabled={busy} onClick={() => openEdit(token.id)}>
        {translate('app.tokens.edit')}
      </Button>
      <Confirm
        isOpen={confirmDelete}
        title="app.tokens.delete_title"
        content="app.tokens.delete_content"
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => {
          setConfirmDelete(false);
          void run(() => dataProvider.delete('token', { id: token.id, previousData: token }));
        }}
        onClose={() => setConfirmDelete(false)}
      />
    </Stack>
  );
};
