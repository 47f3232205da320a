import { parseRegisterInput } from './register-input';

const valid = { username: 'alice', password: 'password123', password2: 'password123' };

describe('parseRegisterInput', () => {
  it('reads the fields the server uses and ignores password2 and unknown keys', () => {
    expect(parseRegisterInput({ ...valid, aff_code: 'AbC1', role: 100, quota: 1e9 })).toEqual({
      username: 'alice',
      password: 'password123',
      email: '',
      verification_code: '',
      aff_code: 'AbC1',
    });
  });

  it('treats null like an absent string, as Go decoding does', () => {
    expect(parseRegisterInput({ ...valid, email: null }).email).toBe('');
  });

  it.each([
    ['a number for a string field', { ...valid, username: 42 }],
    ['an object for a string field', { ...valid, password: { $gt: '' } }],
    ['an array body', [valid]],
    ['a string body', 'username=alice'],
    ['a NUL character', { ...valid, username: 'al\u0000ice' }],
    ['an over-long verification code', { ...valid, verification_code: 'x'.repeat(300) }],
  ])('answers 无效的参数 for %s', (_, body) => {
    expect(() => parseRegisterInput(body)).toThrow('无效的参数');
  });

  it.each([
    [{ ...valid, username: '' }, '输入不合法 用户名不能为空'],
    [{ ...valid, username: 'thirteen-char' }, '输入不合法 用户名长度不能超过 12 个字符'],
    [{ ...valid, password: '' }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
    [{ ...valid, password: 'short' }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
    [{ ...valid, password: 'x'.repeat(21) }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
    [{ ...valid, email: `${'e'.repeat(45)}@x.com` }, '输入不合法 邮箱长度不能超过 50 个字符'],
  ])('answers 输入不合法 for %p', (body, message) => {
    expect(() => parseRegisterInput(body)).toThrow(message);
  });

  it('counts characters, not UTF-16 units or bytes (12 CJK characters or emoji fit)', () => {
    expect(parseRegisterInput({ ...valid, username: '用户名用户名用户名用户名' }).username).toHaveLength(12);
    expect(parseRegisterInput({ ...valid, username: '😀'.repeat(12) }).username).toBe('😀'.repeat(12));
  });

  it('keeps injection-looking text as plain data within the limits', () => {
    expect(parseRegisterInput({ ...valid, username: "'or'1'='1" }).username).toBe("'or'1'='1");
  });
});
