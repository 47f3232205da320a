import { Box, Chip, Typography, useMediaQuery, type Theme } from '@mui/material';
import { DataTable, DateInput, List, Pagination, SelectInput, SimpleList, TopToolbar, useTranslate } from 'react-admin';
import { useStatus } from '../../providers/statusStore';
import { StatementCsvButton } from './StatementCsvButton';
import { renderActor, renderDelta, renderAmount, renderRef, renderTimestamp } from './statementFormat';
import { STATEMENT_KINDS, type StatementLine } from './statementLine';

const useFilters = () => {
  const translate = useTranslate();
  return [
    <SelectInput
      key="kind"
      source="kind"
      label="app.statement.filters.kind"
      choices={STATEMENT_KINDS.map((kind) => ({ id: kind, name: translate(`app.statement.kinds.${kind}`) }))}
      emptyText={translate('app.statement.all_kinds')}
      alwaysOn
    />,
    <DateInput key="start_date" source="start_date" label="app.statement.filters.start_date" alwaysOn />,
    <DateInput key="end_date" source="end_date" label="app.statement.filters.end_date" alwaysOn />,
  ];
};

/** Money in is green, money out red, an informational line (delta 0) plain. */
const KindChip = ({ line }: { line: StatementLine }) => {
  const translate = useTranslate();
  const color = line.delta > 0 ? 'success' : line.delta < 0 ? 'default' : 'info';
  return <Chip size="small" variant="outlined" color={color} label={translate(`app.statement.kinds.${line.kind}`, { _: line.kind })} />;
};

const Delta = ({ line }: { line: StatementLine }) => {
  const status = useStatus();
  const color = line.delta > 0 ? 'success.main' : line.delta < 0 ? 'error.main' : 'text.secondary';
  return (
    <Typography
      component="span"
      variant="body2"
      sx={{ color, fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}
      data-testid="statement-delta"
    >
      {renderDelta(line.delta, status)}
    </Typography>
  );
};

const Actions = ({ userId }: { userId?: number }) => (
  <TopToolbar>
    <StatementCsvButton userId={userId} />
  </TopToolbar>
);

const Empty = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 3 }}>
      <Typography color="text.secondary">{translate('app.statement.empty')}</Typography>
    </Box>
  );
};

export interface StatementListProps {
  title: string;
  /** The account whose statement is shown: set on the admin screen (the `user_id` route), absent for the caller's own. */
  userId?: number;
  /** The owner's id when known, so their own actions read "You" / "The user". */
  ownerId?: number;
}

/**
 * The statement as a react-admin list over the `statement` resource (pages/statement/statementEndpoints.ts): kind
 * and date filters, 1-based pages with the server's total, the CSV download of everything the filters select. On a
 * tablet the who/why/request columns give way to the essentials; on a phone each line is a
 * two-line list item (kind and change; time and details; the balance after on the right).
 */
export const StatementList = ({ title, userId, ownerId }: StatementListProps) => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  const phone = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const small = useMediaQuery<Theme>((theme) => theme.breakpoints.down('md'));
  const own = userId === undefined;
  const Col = DataTable.Col<StatementLine>;
  return (
    <List
      resource="statement"
      title={title}
      filter={userId ? { user_id: userId } : undefined}
      filters={filters}
      perPage={20}
      actions={<Actions userId={userId} />}
      pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
      exporter={false}
      empty={<Empty />}
      disableSyncWithLocation={!own}
      storeKey={own ? 'statement.self' : `statement.user.${userId}`}
    >
      {phone ? (
        <SimpleList<StatementLine>
          linkType={false}
          primaryText={(line) => (
            <Box component="span" sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
              <KindChip line={line} />
              <Delta line={line} />
            </Box>
          )}
          secondaryText={(line) => `${renderTimestamp(line.created_at)} · ${renderRef(line, status, translate)}`}
          tertiaryText={(line) => <span data-testid="statement-balance">{renderAmount(line.balance, status)}</span>}
        />
      ) : (
        <DataTable<StatementLine> rowClick={false} bulkActionButtons={false}>
          <Col
            source="created_at"
            label="app.statement.fields.created_at"
            disableSort
            render={(line) => renderTimestamp(line.created_at)}
          />
          <Col source="kind" label="app.statement.fields.kind" disableSort render={(line) => <KindChip line={line} />} />
          <Col source="delta" label="app.statement.fields.delta" disableSort align="right" render={(line) => <Delta line={line} />} />
          <Col
            source="balance"
            label="app.statement.fields.balance"
            disableSort
            align="right"
            render={(line) => renderAmount(line.balance, status)}
          />
          <Col source="ref" label="app.statement.fields.ref" disableSort render={(line) => renderRef(line, status, translate)} />
          {small ? null : (
            <Col
              source="actor"
              label="app.statement.fields.actor"
              disableSort
              render={(line) => renderActor(line, ownerId, own, translate)}
            />
          )}
          {small ? null : (
            <Col
              source="reason"
              label="app.statement.fields.reason"
              disableSort
              render={(line) => <span title={line.reason}>{translate(`app.statement.reasons.${line.reason}`, { _: line.reason })}</span>}
            />
          )}
          {small ? null : (
            <Col
              source="request_id"
              label="app.statement.fields.request_id"
              disableSort
              render={(line) => (
                <Typography variant="caption" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                  {line.request_id}
                </Typography>
              )}
            />
          )}
          {small ? null : <Col source="id" label="app.statement.fields.id" disableSort />}
        </DataTable>
      )}
    </List>
  );
};
