import type { ReactNode } from 'react';
import { Box, Card, CardContent, Checkbox, LinearProgress, Stack, Typography } from '@mui/material';
import { RecordContextProvider, useListContext, useTranslate } from 'react-admin';
import { TOKEN_STATUS_ENABLED, type Token } from '../../providers/endpoints/tokenEndpoints';
import { TokenRowActions } from './TokenRowActions';
import { TokenStatusChip } from './TokenStatusChip';

const Line = ({ label, children }: { label: string; children: ReactNode }) => (
  <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between', alignItems: 'center' }}>
    <Typography variant="body2" color="text.secondary">
      {label}
    </Typography>
    <Box sx={{ textAlign: 'right' }}>{children}</Box>
  </Stack>
);

export interface TokenCellRenderers {
  usedQuota: (token: Token) => ReactNode;
  remainQuota: (token: Token) => ReactNode;
  createdTime: (token: Token) => ReactNode;
  expiry: (token: Token) => ReactNode;
}

/**
 * The list on a phone: one card per token with the same columns, a selection box and the row actions, so the
 * screen needs no sideways scrolling at 375 px. Unusable tokens are greyed as in the table.
 */
export const TokenCards = ({ render, empty }: { render: TokenCellRenderers; empty: ReactNode }) => {
  const translate = useTranslate();
  const { data, isPending, selectedIds, onToggleItem } = useListContext<Token>();
  if (isPending) return <LinearProgress aria-label={translate('app.common.loading')} />;
  if (!data?.length) return <>{empty}</>;
  return (
    <Stack spacing={1} sx={{ p: 1 }} role="list">
      {data.map((token) => (
        <RecordContextProvider key={token.id} value={token}>
          <Card role="listitem" variant="outlined" sx={token.status !== TOKEN_STATUS_ENABLED ? { opacity: 0.5 } : undefined}>
            <CardContent sx={{ '&:last-child': { pb: 1.5 } }}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
                <Checkbox
                  size="small"
                  checked={selectedIds.includes(token.id)}
                  onChange={() => onToggleItem(token.id)}
                  slotProps={{ input: { 'aria-label': token.name } }}
                  sx={{ p: 0.5 }}
                />
                <Typography sx={{ fontWeight: 600, flex: 1, wordBreak: 'break-all' }}>{token.name}</Typography>
                <TokenStatusChip token={token} />
              </Stack>
              <Stack spacing={0.5}>
                <Line label={translate('app.tokens.fields.used_quota')}>{render.usedQuota(token)}</Line>
                <Line label={translate('app.tokens.fields.remain_quota')}>{render.remainQuota(token)}</Line>
                <Line label={translate('app.tokens.fields.created_time')}>{render.createdTime(token)}</Line>
                <Line label={translate('app.tokens.fields.expired_time')}>{render.expiry(token)}</Line>
              </Stack>
              <Box sx={{ mt: 1 }}>
                <TokenRowActions />
              </Box>
            </CardContent>
          </Card>
        </RecordContextProvider>
      ))}
    </Stack>
  );
};
