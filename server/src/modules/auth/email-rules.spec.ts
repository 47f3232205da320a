import { assertEmailAllowed, isValidEmail } from './email-rules';

const open = { domainRestrictionEnabled: false, domainWhitelist: '', aliasRestrictionEnabled: false };

describe('isValidEmail', () => {
  it.each(['alice@gmail.com', 'a.b+c@sub.example.org', '张三@例子.中国', "o'brien@x.io"])('accepts %s', (email) => {
    expect(isValidEmail(email)).toBe(true);
  });

  it.each([
    '',
    'plain',
    '@gmail.com',
    'alice@',
    'alice@localhost',
    'a@@b.com',
    'a@b@c.com',
    '.alice@gmail.com',
    'alice.@gmail.com',
    'al..ice@gmail.com',
    'alice@-bad.com',
    'alice@gmail..com',
    "x'; DROP TABLE users;--@a.com",
    '<script>@a.com',
    'a b@c.com',
    `${'a'.repeat(45)}@b.com`,
  ])('rejects %p', (email) => {
    expect(isValidEmail(email)).toBe(false);
  });
});

describe('assertEmailAllowed', () => {
  it('allows anything when both restrictions are off', () => {
    expect(() => assertEmailAllowed('a.b+c@anything.net', open)).not.toThrow();
  });

  it('matches the whitelist exactly: case-sensitive and untrimmed, as new-api', () => {
    const policy = { ...open, domainRestrictionEnabled: true, domainWhitelist: 'gmail.com, qq.com' };
    expect(() => assertEmailAllowed('a@gmail.com', policy)).not.toThrow();
    expect(() => assertEmailAllowed('a@Gmail.com', policy)).toThrow(/email domain name whitelist/);
    expect(() => assertEmailAllowed('a@qq.com', policy)).toThrow(/email domain name whitelist/);
    expect(() => assertEmailAllowed('a@evil-gmail.com', policy)).toThrow(/email domain name whitelist/);
  });

  it('refuses a local part with + or . when the alias restriction is on', () => {
    const policy = { ...open, aliasRestrictionEnabled: true };
    expect(() => assertEmailAllowed('a+b@gmail.com', policy)).toThrow(
      '管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。',
    );
    expect(() => assertEmailAllowed('a.b@gmail.com', policy)).toThrow('管理员已启用邮箱地址别名限制');
    expect(() => assertEmailAllowed('ab@sub.gmail.com', policy)).not.toThrow();
  });

  it('checks the whitelist before the alias rule', () => {
    const policy = { domainRestrictionEnabled: true, domainWhitelist: 'qq.com', aliasRestrictionEnabled: true };
    expect(() => assertEmailAllowed('a+b@gmail.com', policy)).toThrow(/whitelist/);
  });
});
