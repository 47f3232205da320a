import { passwordResetLink, passwordResetMail, verificationMail } from './auth-mails';

describe('identity mails', () => {
  it('puts the code in the verification mail under the new-api subject', () => {
    const mail = verificationMail('New API', 'a@b.com', '0a1b2c');
    expect(mail).toMatchObject({ to: 'a@b.com', subject: 'New API邮箱验证邮件' });
    expect(mail.html).toContain('<strong>0a1b2c</strong>');
    expect(mail.html).toContain('验证码 10 分钟内有效');
  });

  it('builds the reset link on the server address and URL-encodes the address (fix)', () => {
    expect(passwordResetLink('https://api.example.com/', 'a+b@c.com', 'f'.repeat(32))).toBe(
      `https://api.example.com/user/reset?email=a%2Bb%40c.com&token=${'f'.repeat(32)}`,
    );
  });

  it('escapes HTML in the system name and the link (fix: a quote in the address broke the link)', () => {
    const link = passwordResetLink('http://localhost:3000', "o'brien@x.io", 'abc');
    const mail = passwordResetMail('<b>Evil</b>', "o'brien@x.io", link);
    expect(mail.subject).toBe('<b>Evil</b>密码重置');
    expect(mail.html).not.toContain('<b>Evil</b>');
    expect(mail.html).toContain('&lt;b&gt;Evil&lt;/b&gt;');
    expect(mail.html).toContain(`href="http://localhost:3000/user/reset?email=o%27brien%40x.io&amp;token=abc"`);
  });
});
