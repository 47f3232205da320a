import { useCallback, useState } from 'react';
import { Button } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { DataTable, List, Pagination, TextInput, TopToolbar, useListContext, useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCopy } from '../../hooks/useCopy';
import { renderQuota } from '../../lib/quota';
import { REDEMPTION_STATUS_UNUSED, type Redemption, type RedemptionBatch } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { RequireAdmin } from '../users/RequireAdmin';
import { DownloadKeysDialog } from './DownloadKeysDialog';
import { RedemptionDrawer, type DrawerTarget } from './RedemptionDrawer';
import { EditDrawerContext, RedemptionRowActions } from './RedemptionRowActions';
import { RedemptionStatusChip } from './RedemptionStatusChip';

const pad = (value: number) => String(value).padStart(2, '0');

/** Seconds since the epoch as local `YYYY-MM-DD HH:mm:ss`. */
const renderTimestamp = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

/**
 * One line per selected code, its name then its key. The list toolbar's copy answers "select one first"; once rows
 * are selected it steps aside for the bulk toolbar's.
 */
const CopySelectedButton = ({ inListToolbar = false }: { inListToolbar?: boolean }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const copy = useCopy();
  const { data, selectedIds } = useListContext<Redemption>();
  const copySelected = () => {
    const selected = (data ?? []).filter((code) => selectedIds.includes(code.id));
    if (selected.length === 0) {
      notify.failure('app.redemptions.select_one');
      return;
    }
    void copy(selected.map((code) => `${code.name}    ${code.key}\n`).join(''), 'app.redemptions.copied');
  };
  if (inListToolbar && selectedIds.length > 0) return null;
  return (
    <Button size="small" variant="outlined" startIcon={<ContentCopyIcon />} onClick={copySelected}>
      {translate('app.redemptions.copy_selected')}
    </Button>
  );
};

const ListActions = ({ onAdd }: { onAdd: () => void }) => {
  const translate = useTranslate();
  return (
    <TopToolbar>
      <Button variant="contained" size="small" startIcon={<AddIcon />} onClick={onAdd}>
        {translate('app.redemptions.add')}
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
      label="ra.action.search"
      placeholder={translate('app.redemptions.search')}
      alwaysOn
      resettable
      sx={{ minWidth: { sm: 360 } }}
    />,
  ];
};

/** Codes that can no longer be redeemed (disabled or used) are greyed. */
const rowSx = (record: Redemption) => (record.status !== REDEMPTION_STATUS_UNUSED ? { opacity: 0.5 } : {});

const RedeemerId = ({ userId }: { userId: number }) => {
  const translate = useTranslate();
  return <>{userId === 0 ? translate('app.redemptions.nobody') : userId}</>;
};

/** /redemption: the admin's redemption codes, 10 per page by default, newest first; creation and editing in a side drawer. */
export const RedemptionList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  const refresh = useRefresh();
  const [drawer, setDrawer] = useState<DrawerTarget>(null);
  const [batch, setBatch] = useState<RedemptionBatch | null>(null);
  const openEdit = useCallback((id: number) => setDrawer({ mode: 'edit', id }), []);
  const closeDrawer = () => setDrawer(null);
  return (
    <RequireAdmin>
      <EditDrawerContext.Provider value={openEdit}>
        <List
          resource="redemption"
          title={translate('app.redemptions.title')}
          perPage={10}
          filters={filters}
          actions={<ListActions onAdd={() => setDrawer({ mode: 'create' })} />}
          pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
          exporter={false}
          empty={false}
        >
          <DataTable<Redemption> rowClick={false} bulkActionButtons={<CopySelectedButton />} rowSx={rowSx}>
            <DataTable.Col<Redemption> source="id" disableSort />
            <DataTable.Col<Redemption> source="name" disableSort />
            <DataTable.Col<Redemption> source="status" disableSort render={(code) => <RedemptionStatusChip status={code.status} />} />
            <DataTable.Col<Redemption> source="quota" disableSort render={(code) => renderQuota(code.quota, status)} />
            <DataTable.Col<Redemption> source="created_time" disableSort render={(code) => renderTimestamp(code.created_time)} />
            <DataTable.Col<Redemption> source="used_user_id" disableSort render={(code) => <RedeemerId userId={code.used_user_id} />} />
            <DataTable.Col<Redemption> label="resources.redemption.fields.actions">
              <RedemptionRowActions />
            </DataTable.Col>
          </DataTable>
        </List>
        <RedemptionDrawer
          target={drawer}
          onClose={closeDrawer}
          onCreated={(created) => {
            closeDrawer();
            setBatch(created);
            refresh();
          }}
          onSaved={() => {
            closeDrawer();
            refresh();
          }}
        />
        <DownloadKeysDialog batch={batch} onClose={() => setBatch(null)} />
      </EditDrawerContext.Provider>
    </RequireAdmin>
  );
};
