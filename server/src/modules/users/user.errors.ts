import { ConflictError, DomainError, ForbiddenError } from '../../common/http/errors';

/** Messages of the users API by stable code: new-api's texts (the console shows them verbatim), plus a few of ours. */
export const USER_MESSAGES = {
  user_not_found: '用户不存在',
  username_taken: '用户名已存在，或已注销',
  root_cannot_delete_self: '不能删除超级管理员账户',
  cannot_read_peer: '无权获取同级或更高等级用户的信息',
  cannot_create_peer: '无法创建权限大于等于自己的用户',
  cannot_update_peer: '无权更新同权限等级或更高权限等级的用户信息',
  cannot_raise_to_peer: '无权将其他用户权限等级提升到大于等于自己的权限等级',
  cannot_delete_peer: '无权删除同权限等级或更高权限等级的用户',
  cannot_disable_root: '无法禁用超级管理员用户',
  cannot_delete_root: '无法删除超级管理员用户',
  admin_cannot_promote: '普通管理员用户无法提升其他用户为管理员',
  already_admin: '该用户已经是管理员',
  cannot_demote_root: '无法降级超级管理员用户',
  already_common: '该用户已经是普通用户',
  access_token_collision: '请重试，系统生成的 UUID 竟然重复了！',
  username_required: '用户名不能为空',
  ledger_has_history: '该用户的账本已有记录，无法彻底删除，请改用注销',
  still_referenced: '该用户仍有关联数据，无法彻底删除，请改用注销',
} as const;

export type UserMessageCode = keyof typeof USER_MESSAGES;

export class UserNotFoundError extends DomainError {
  constructor() {
    super(USER_MESSAGES.user_not_found, 'user_not_found');
  }
}

export class UsernameTakenError extends ConflictError {
  constructor() {
    super(USER_MESSAGES.username_taken);
  }
}

/** A refusal by role or by the target's nature (root, already admin…): HTTP 200, success:false. */
export class UserActionRefusedError extends ForbiddenError {
  constructor(readonly reason: Exclude<UserMessageCode, 'user_not_found' | 'username_taken'>) {
    super(USER_MESSAGES[reason]);
  }
}
