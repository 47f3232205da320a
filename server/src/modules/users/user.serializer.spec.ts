import { UserEntity } from './user.entity';
import { toLoginUser, toRoleStatusUser, toUserJson } from './user.serializer';

function user(overrides: Partial<UserEntity> = {}): UserEntity {
  return Object.assign(new UserEntity(), {
    id: 5,
    username: 'alice',
    password: '$2a$10$hash',
    displayName: 'Alice',
    role: 1,
    status: 1,
    email: 'a@example.com',
    githubId: 'gh',
    wechatId: '',
    telegramId: '',
    accessToken: null,
    group: 'vip',
    affCode: 'Ab3x',
    inviterId: 2,
    createdAt: new Date('2024-10-10T00:00:00Z'),
    deletedAt: null,
    ...overrides,
  });
}

const KEYS = [
  'id',
  'username',
  'password',
  'display_name',
  'role',
  'status',
  'email',
  'github_id',
  'wechat_id',
  'telegram_id',
  'verification_code',
  'access_token',
  'quota',
  'used_quota',
  'request_count',
  'group',
  'aff_code',
  'aff_count',
  'aff_quota',
  'aff_history_quota',
  'inviter_id',
  'DeletedAt',
];

describe('user serializer', () => {
  it('has the new-api keys in the new-api order, never the password hash', () => {
    const json = toUserJson(user(), { quota: 10, usedQuota: 2, requestCount: 3, affCount: 1, affQuota: 4, affHistoryQuota: 5 });
    expect(Object.keys(json)).toEqual(KEYS);
    expect(json).toMatchObject({
      password: '',
      verification_code: '',
      quota: 10,
      used_quota: 2,
      request_count: 3,
      aff_count: 1,
      aff_quota: 4,
      aff_history_quota: 5,
    });
    expect(JSON.stringify(json)).not.toContain('$2a$');
  });

  it('reads zeros for an account without events', () => {
    expect(toUserJson(user())).toMatchObject({
      quota: 0,
      used_quota: 0,
      request_count: 0,
      aff_count: 0,
      aff_quota: 0,
      aff_history_quota: 0,
    });
  });

  it('serialises soft delete as a capitalised DeletedAt timestamp or null', () => {
    expect(toUserJson(user()).DeletedAt).toBeNull();
    expect(toUserJson(user({ deletedAt: new Date('2024-10-11T01:02:03Z') })).DeletedAt).toBe('2024-10-11T01:02:03.000Z');
  });

  it('trims the char(32) padding of a 28-character access token and keeps null for none', () => {
    expect(toUserJson(user({ accessToken: `${'a'.repeat(28)}    ` }), null, { withAccessToken: true }).access_token).toBe('a'.repeat(28));
    expect(toUserJson(user(), null, { withAccessToken: true }).access_token).toBeNull();
  });

  it("leaves the access token out unless the owner's own read asks for it", () => {
    expect(toUserJson(user({ accessToken: 'a'.repeat(28) })).access_token).toBeNull();
    expect(toUserJson(user({ accessToken: 'a'.repeat(28) }), null, { accountRevision: 1 }).access_token).toBeNull();
  });

  it('adds the admin-only account revision and the root-only default-password flag only when asked', () => {
    expect(toUserJson(user())).not.toHaveProperty('account_revision');
    expect(toUserJson(user())).not.toHaveProperty('password_is_default');
    expect(toUserJson(user(), null, { accountRevision: 3, passwordIsDefault: true })).toMatchObject({
      account_revision: 3,
      password_is_default: true,
    });
  });

  it('gives login only id, username, display_name, role, status and group, zero values elsewhere', () => {
    const json = toLoginUser(user({ accessToken: 'secret-token-secret-token-secr' }));
    expect(Object.keys(json)).toEqual(KEYS);
    expect(json).toEqual({
      id: 5,
      username: 'alice',
      password: '',
      display_name: 'Alice',
      role: 1,
      status: 1,
      email: '',
      github_id: '',
      wechat_id: '',
      telegram_id: '',
      verification_code: '',
      access_token: null,
      quota: 0,
      used_quota: 0,
      request_count: 0,
      group: 'vip',
      aff_code: '',
      aff_count: 0,
      aff_quota: 0,
      aff_history_quota: 0,
      inviter_id: 0,
      DeletedAt: null,
    });
  });

  it('answers manage with role and status in an otherwise zero user', () => {
    const json = toRoleStatusUser({ role: 10, status: 2 });
    expect(Object.keys(json)).toEqual(KEYS);
    expect(json).toMatchObject({ id: 0, username: '', group: '', role: 10, status: 2, DeletedAt: null });
  });
});
