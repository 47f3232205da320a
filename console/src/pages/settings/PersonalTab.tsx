import { Stack } from '@mui/material';
import { useApiData } from '../../hooks/useApiData';
import type { User } from '../../lib/types';
import { AccountCard } from './AccountCard';
import { BindingsCard } from './BindingsCard';
import { InviteCard } from './InviteCard';
import { SecurityCard } from './SecurityCard';

/** The personal tab: everything a user manages about their own account. */
export const PersonalTab = () => {
  const self = useApiData<User>('/api/user/self');
  const models = useApiData<string[] | null>('/api/user/models');
  const aff = useApiData<string>('/api/user/aff');
  return (
    <Stack spacing={2}>
      <AccountCard user={self.data} models={models.data ?? []} />
      <InviteCard user={self.data} affCode={aff.data} onTransferred={self.reload} />
      <BindingsCard user={self.data} onChanged={self.reload} />
      <SecurityCard user={self.data} />
    </Stack>
  );
};
