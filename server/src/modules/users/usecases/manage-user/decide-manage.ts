import { Role, UserStatus } from '../../user.entity';
import { UserActionRefusedError } from '../../user.errors';

export interface ManageTarget {
  role: number;
  status: number;
}

export interface ManageOutcome {
  role: number;
  status: number;
  /** Cancel the account (soft delete). */
  cancel: boolean;
}

/**
 * POST /api/user/manage (disable, enable, delete, promote, demote), pure. An admin may act on common users only;
 * only root acts on admins. An unknown action changes nothing and still succeeds, as in new-api.
 */
export function decideManage(action: string, callerRole: number, target: ManageTarget): ManageOutcome {
  if (callerRole <= target.role && callerRole !== Role.Root) throw new UserActionRefusedError('cannot_update_peer');
  const outcome: ManageOutcome = { role: target.role, status: target.status, cancel: false };
  switch (action) {
    case 'disable':
      if (target.role === Role.Root) throw new UserActionRefusedError('cannot_disable_root');
      return { ...outcome, status: UserStatus.Disabled };
    case 'enable':
      return { ...outcome, status: UserStatus.Enabled };
    case 'delete':
      if (target.role === Role.Root) throw new UserActionRefusedError('cannot_delete_root');
      return { ...outcome, cancel: true };
    case 'promote':
      if (callerRole !== Role.Root) throw new UserActionRefusedError('admin_cannot_promote');
      if (target.role >= Role.Admin) throw new UserActionRefusedError('already_admin');
      return { ...outcome, role: Role.Admin };
    case 'demote':
      if (target.role === Role.Root) throw new UserActionRefusedError('cannot_demote_root');
      if (target.role === Role.Common) throw new UserActionRefusedError('already_common');
      return { ...outcome, role: Role.Common };
    default:
      return outcome;
  }
}
