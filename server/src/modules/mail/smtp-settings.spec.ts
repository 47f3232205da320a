import { isSmtpConfigured, senderAddress, type SmtpSettings, smtpTransportOptions } from './smtp-settings';

const base: SmtpSettings = {
  server: 'smtp.example.com',
  port: '587',
  account: 'mailer@example.com',
  token: 'app-password',
  from: '',
  sslEnabled: false,
  systemName: 'New API',
};

describe('SMTP settings', () => {
  it('uses STARTTLS-capable plain SMTP on 587 with the account as credentials', () => {
    expect(smtpTransportOptions(base)).toMatchObject({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      auth: { user: 'mailer@example.com', pass: 'app-password' },
    });
  });

  it('uses implicit TLS on port 465 or when SMTPSSLEnabled is on', () => {
    expect(smtpTransportOptions({ ...base, port: '465' }).secure).toBe(true);
    expect(smtpTransportOptions({ ...base, port: '2525', sslEnabled: true })).toMatchObject({ port: 2525, secure: true });
  });

  it('sends no credentials without an account, and falls back to 587 for a nonsense port', () => {
    const options = smtpTransportOptions({ ...base, account: '', port: 'abc' });
    expect(options.auth).toBeUndefined();
    expect(options.port).toBe(587);
    expect(smtpTransportOptions({ ...base, port: '70000' }).port).toBe(587);
  });

  it('sends from SMTPFrom, else from SMTPAccount', () => {
    expect(senderAddress(base)).toBe('mailer@example.com');
    expect(senderAddress({ ...base, from: 'noreply@example.com' })).toBe('noreply@example.com');
  });

  it('is configured only with a server and some sender address', () => {
    expect(isSmtpConfigured(base)).toBe(true);
    expect(isSmtpConfigured({ ...base, server: '' })).toBe(false);
    expect(isSmtpConfigured({ ...base, server: '   ' })).toBe(false);
    expect(isSmtpConfigured({ ...base, account: '', from: '' })).toBe(false);
    expect(isSmtpConfigured({ ...base, account: '', from: 'noreply@example.com' })).toBe(true);
  });
});
