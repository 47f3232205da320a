import { useCallback, useState } from 'react';
import { Alert, Box, Button, Card, CardContent, Chip, Typography, useMediaQuery, type Theme } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import KeyIcon from '@mui/icons-material/Key';
import { DataTable, List, Pagination, TextInput, TopToolbar, useListContext, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCopy } from '../../hooks/useCopy';
import { renderQuota } from '../../lib/quota';
import { NEVER_EXPIRES, TOKEN_STATUS_ENABLED, type Token } from '../../providers/endpoints/tokenEndpoints';
import { useStatus } from '../../providers/statusStore';
import { TokenCards, type TokenCellRenderers } from './TokenCards';
import { TokenDrawer, type DrawerTarget } from './TokenDrawer';
import { EditDrawerContext, TokenRowActions } from './TokenRowActions';
import { TokenStatusChip } from './TokenStatusChip';
import { renderTimestamp } from './tokenForm';

/**
 * One line per selected token, its name then its `sk-` key. The list toolbar's copy answers "select one first";
 * once rows are selected it steps aside for the bulk toolbar's.
 */
const CopySelectedButton = ({ inListToolbar = false }: { inListToolbar?: boolean }) => {
  const translate = useTranslate();
  // Phones show cards, which have no bulk toolbar: the list toolbar's button stays.
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const notify = useApiNotify();
  const copy = useCopy();
  const { data, selectedIds } = useListContext<Token>();
  const copySelected = () => {
    const selected = (data ?? []).filter((token) => selectedIds.includes(token.id));
    if (selected.length === 0) {
      notify.failure('app.tokens.select_one');
      return;
    }
    void copy(selected.map((token) => `${token.name}    sk-${token.key}\n`).join(''), 'app.tokens.copied');
  };
  if (inListToolbar && !isSmall && selectedIds.length > 0) return null;
  return (
    <Button size="small" variant="outlined" startIcon={<ContentCopyIcon />} onClick={copySelected}>
      {translate('app.tokens.copy_selected')}
    </Button>
  );
};

const ListActions = ({ onAdd }: { onAdd: () => void }) => {
  const translate = useTranslate();
  return (
    <TopToolbar sx={{ flexWrap: 'wrap', gap: 1 }}>
      <Button variant="contained" size="small" startIcon={<AddIcon />} onClick={onAdd}>
        {translate('app.tokens.add')}
      </Button>
      <CopySelectedButton inListToolbar />
    </TopToolbar>
  );
};

const useFilters = () => {
  const translate = useTranslate();
  return [
    <TextInput
      key="keyword"
      source="keyword"
      label="app.tokens.search_name"
      placeholder={translate('app.tokens.search_name_placeholder')}
      alwaysOn
      resettable
    />,
    <TextInput
      key="token"
      source="token"
      label="app.tokens.search_key"
      placeholder={translate('app.tokens.search_key_placeholder')}
      alwaysOn
      resettable
    />,
  ];
};

/** No token at all (no search): say so and offer the add button. */
const NoTokens = ({ onAdd }: { onAdd: () => void }) => {
  const translate = useTranslate();
  return (
    <Card sx={{ mt: 2 }}>
      <CardContent sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 2, py: 4, textAlign: 'center' }}>
        <KeyIcon color="action" fontSize="large" />
        <Typography>{translate('app.tokens.empty')}</Typography>
        <Button variant="contained" startIcon={<AddIcon />} onClick={onAdd}>
          {translate('app.tokens.add')}
        </Button>
      </CardContent>
    </Card>
  );
};

const NoMatch = () => {
  const translate = useTranslate();
  return <Typography sx={{ p: 2, color: 'text.secondary' }}>{translate('app.tokens.empty_search')}</Typography>;
};

const RemainQuota = ({ token }: { token: Token }) => {
  const translate = useTranslate();
  const status = useStatus();
  return token.unlimited_quota ? (
    <Chip size="small" variant="outlined" label={translate('app.tokens.unlimited')} />
  ) : (
    <Chip size="small" color="info" variant="outlined" label={renderQuota(token.remain_quota, status)} />
  );
};

const Expiry = ({ token }: { token: Token }) => {
  const translate = useTranslate();
  return <>{token.expired_time === NEVER_EXPIRES ? translate('app.tokens.never_expires') : renderTimestamp(token.expired_time)}</>;
};

/** Tokens that cannot be used (disabled, expired, exhausted) are greyed. */
const rowSx = (token: Token) => (token.status !== TOKEN_STATUS_ENABLED ? { opacity: 0.5 } : {});

const nowrap = () => ({ whiteSpace: 'nowrap' }) as const;

/** /token: the user's own API tokens, newest first; creation and editing in a side drawer. */
export const TokenList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  const refresh = useRefresh();
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  const [drawer, setDrawer] = useState<DrawerTarget>(null);
  const render: TokenCellRenderers = {
    usedQuota: (token) => renderQuota(token.used_quota, status),
    remainQuota: (token) => <RemainQuota token={token} />,
    createdTime: (token) => renderTimestamp(token.created_time),
    expiry: (token) => <Expiry token={token} />,
  };
  const openEdit = useCallback((id: number) => setDrawer({ mode: 'edit', id }), []);
  const openCreate = () => setDrawer({ mode: 'create' });
  const closeDrawer = () => setDrawer(null);
  return (
    <EditDrawerContext.Provider value={openEdit}>
      <Box sx={{ pt: 2 }}>
        <Alert severity="warning">{translate('app.tokens.warning')}</Alert>
      </Box>
      <List
        resource="token"
        // Like new-api, each visit starts afresh: no search, page size or selection is kept from the last one
        // (a kept selection would also keep the bulk toolbar over the add button).
        storeKey={false}
        title={translate('app.tokens.title')}
        perPage={10}
        filters={filters}
        actions={<ListActions onAdd={openCreate} />}
        pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
        exporter={false}
        empty={<NoTokens onAdd={openCreate} />}
      >
        {isSmall ? (
          <TokenCards render={render} empty={<NoMatch />} />
        ) : (
          <DataTable<Token>
            sx={{ '& .RaDataTable-tableWrapper': { overflowX: 'auto' } }}
            rowClick={false}
            bulkActionButtons={<CopySelectedButton />}
            rowSx={rowSx}
            empty={<NoMatch />}
          >
            <DataTable.Col<Token> source="name" label="app.tokens.fields.name" disableSort />
            <DataTable.Col<Token>
              source="status"
              label="app.tokens.fields.status"
              disableSort
              render={(token) => <TokenStatusChip token={token} />}
            />
            <DataTable.Col<Token> source="used_quota" label="app.tokens.fields.used_quota" disableSort render={render.usedQuota} />
            <DataTable.Col<Token> source="remain_quota" label="app.tokens.fields.remain_quota" disableSort render={render.remainQuota} />
            <DataTable.Col<Token>
              source="created_time"
              label="app.tokens.fields.created_time"
              disableSort
              cellSx={nowrap}
              render={render.createdTime}
            />
            <DataTable.Col<Token>
              source="expired_time"
              label="app.tokens.fields.expired_time"
              disableSort
              cellSx={nowrap}
              render={render.expiry}
            />
            <DataTable.Col<Token> label="app.tokens.fields.actions">
              <TokenRowActions />
            </DataTable.Col>
          </DataTable>
        )}
      </List>
      <TokenDrawer
        target={drawer}
        onClose={closeDrawer}
        onDone={() => {
          closeDrawer();
          refresh();
        }}
      />
    </EditDrawerContext.Provider>
  );
};
