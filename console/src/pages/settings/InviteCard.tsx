import { useState } from 'react';
import { Box, Button, Card, CardContent, Divider, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useCopy } from '../../hooks/useCopy';
import { renderQuota } from '../../lib/quota';
import type { User } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { AffTransferDialog } from './AffTransferDialog';
import { StatList } from './StatList';

export interface InviteCardProps {
  user?: User;
  affCode?: string;
  onTransferred: () => void;
}

/** Pending earnings (with transfer), total earnings, invite count and the invite link. */
export const InviteCard = ({ user, affCode, onTransferred }: InviteCardProps) => {
  const translate = useTranslate();
  const status = useStatus();
  const copy = useCopy();
  const [transferOpen, setTransferOpen] = useState(false);
  const inviteLink = affCode ? `${window.location.origin}/register?aff=${affCode}` : '';

  return (
    <Card component="section" aria-label={translate('app.personal.invite_title')}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" gutterBottom>
          {translate('app.personal.invite_title')}
        </Typography>
        <StatList
          stats={[
            {
              label: translate('app.personal.aff_quota'),
              testId: 'aff-quota',
              value: (
                <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
                  <Box component="span" sx={{ color: 'error.main' }}>
                    {renderQuota(user?.aff_quota, status)}
                  </Box>
                  <Button size="small" variant="outlined" onClick={() => setTransferOpen(true)}>
                    {translate('app.personal.transfer')}
                  </Button>
                </Box>
              ),
            },
            { label: translate('app.personal.aff_history'), value: renderQuota(user?.aff_history_quota, status), testId: 'aff-history' },
            { label: translate('app.personal.aff_count'), value: user?.aff_count ?? 0, testId: 'aff-count' },
          ]}
        />
        <Divider sx={{ my: 2 }} />
        <Stack spacing={1}>
          <TextField
            label={translate('app.personal.invite_link')}
            value={inviteLink}
            onClick={() => inviteLink && copy(inviteLink, 'app.personal.invite_link_copied')}
            slotProps={{ input: { readOnly: true } }}
            fullWidth
          />
        </Stack>
      </CardContent>
      <AffTransferDialog
        open={transferOpen}
        affQuota={user?.aff_quota ?? 0}
        onClose={() => setTransferOpen(false)}
        onTransferred={onTransferred}
      />
    </Card>
  );
};
