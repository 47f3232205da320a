import { Avatar, Box, Card, CardContent, Chip, Divider, Stack, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useCopy } from '../../hooks/useCopy';
import { renderQuota } from '../../lib/quota';
import { ROLE_ADMIN, type User } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { StatList } from './StatList';

export interface AccountCardProps {
  user?: User;
  models?: string[];
}

/** Id, group, role tag, balance, used quota, request count and the models usable in the user's group. */
export const AccountCard = ({ user, models }: AccountCardProps) => {
  const translate = useTranslate();
  const status = useStatus();
  const copy = useCopy();
  const name = user?.username ?? '';

  return (
    <Card component="section" aria-label={name}>
      <CardContent>
        <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Avatar sx={{ bgcolor: 'primary.main' }}>{name.slice(0, 1).toUpperCase()}</Avatar>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Typography variant="h6" component="h2" noWrap>
              {name}
            </Typography>
            {user ? (
              <Chip
                size="small"
                color={user.role >= ROLE_ADMIN ? 'error' : 'primary'}
                label={translate(user.role >= ROLE_ADMIN ? 'app.personal.role_admin' : 'app.personal.role_user')}
              />
            ) : null}
          </Box>
          <Stack spacing={0.5} sx={{ alignItems: 'flex-end' }}>
            <Chip size="small" color="success" label={translate('app.personal.id', { id: user?.id ?? '' })} />
            <Chip size="small" variant="outlined" label={user?.group ?? ''} />
          </Stack>
        </Stack>
        <Divider sx={{ my: 2 }} />
        <StatList
          stats={[
            { label: translate('app.personal.balance'), value: renderQuota(user?.quota, status), testId: 'balance' },
            { label: translate('app.personal.used_quota'), value: renderQuota(user?.used_quota, status), testId: 'used-quota' },
            { label: translate('app.personal.request_count'), value: user?.request_count ?? 0, testId: 'request-count' },
          ]}
        />
        <Divider sx={{ my: 2 }} />
        <Typography variant="subtitle1" component="h3" gutterBottom>
          {translate('app.personal.models')}
        </Typography>
        {models?.length ? (
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
            {models.map((model) => (
              <Chip key={model} label={model} color="info" variant="outlined" onClick={() => copy(model)} />
            ))}
          </Stack>
        ) : (
          <Typography variant="body2" color="text.secondary">
            {translate('app.personal.models_empty')}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
};
