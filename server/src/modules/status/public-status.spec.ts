import { OPTION_DEFAULTS } from '../options/option-defaults';
import { buildPublicStatus, type OptionReader } from './public-status';

function reader(overrides: Record<string, string> = {}): OptionReader {
  const get = (key: string) => overrides[key] ?? OPTION_DEFAULTS[key] ?? '';
  return { get, getBool: (key) => get(key) === 'true', getNumber: (key) => Number(get(key)) || 0 };
}

const facts = { version: 'v9.9.9', startTime: 1_700_000_000, enableBatchUpdate: false };

describe('public status', () => {
  it('has every key of the new-api status with its default', () => {
    expect(buildPublicStatus(reader(), facts)).toEqual({
      version: 'v9.9.9',
      start_time: 1_700_000_000,
      email_verification: false,
      github_oauth: false,
      github_client_id: '',
      telegram_oauth: false,
      telegram_bot_name: '',
      system_name: 'New API',
      logo: '',
      footer_html: '',
      wechat_qrcode: '',
      wechat_login: false,
      server_address: 'http://localhost:3000',
      price: 7.3,
      min_topup: 1,
      turnstile_check: false,
      turnstile_site_key: '',
      top_up_link: '',
      chat_link: '',
      chat_link2: '',
      quota_per_unit: 500000,
      display_in_currency: true,
      enable_batch_update: false,
      enable_drawing: true,
      enable_task: true,
      enable_data_export: true,
      data_export_default_time: 'hour',
      default_collapse_sidebar: false,
      enable_online_topup: false,
      mj_notify_enabled: false,
    });
  });

  it('follows the options it is derived from', () => {
    const status = buildPublicStatus(
      reader({
        SystemName: 'Tollgate',
        Footer: '<b>f</b>',
        ServerAddress: 'https://gw.example.com',
        GitHubOAuthEnabled: 'true',
        GitHubClientId: 'cid',
        WeChatAccountQRCodeImageURL: 'https://qr',
        QuotaPerUnit: '1000',
        Price: '7.1',
        DrawingEnabled: 'false',
        TurnstileSiteKey: 'site-key',
      }),
      facts,
    );
    expect(status).toMatchObject({
      system_name: 'Tollgate',
      footer_html: '<b>f</b>',
      server_address: 'https://gw.example.com',
      github_oauth: true,
      github_client_id: 'cid',
      wechat_qrcode: 'https://qr',
      quota_per_unit: 1000,
      price: 7.1,
      enable_drawing: false,
      turnstile_site_key: 'site-key',
    });
  });

  it('offers online top-up only when PayAddress, EpayId and EpayKey are all set', () => {
    const all = { PayAddress: 'https://pay.example.com', EpayId: '1001', EpayKey: 'secret' };
    expect(buildPublicStatus(reader(all), facts).enable_online_topup).toBe(true);
    for (const missing of Object.keys(all)) {
      expect(buildPublicStatus(reader({ ...all, [missing]: '' }), facts).enable_online_topup).toBe(false);
    }
  });

  it('never carries a secret', () => {
    const secrets = { EpayKey: 'epay-secret', SMTPToken: 'smtp-secret', GitHubClientSecret: 'gh-secret', TurnstileSecretKey: 'ts-secret' };
    expect(JSON.stringify(buildPublicStatus(reader(secrets), facts))).not.toMatch(/secret/);
  });
});
