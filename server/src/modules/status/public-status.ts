import { DEFAULT_SERVER_ADDRESS } from '../options/option-defaults';

/** The part of OptionsService the public status reads; a plain map serves in specs. */
export interface OptionReader {
  get(key: string): string;
  getBool(key: string): boolean;
  getNumber(key: string): number;
}

export interface ServerFacts {
  version: string;
  /** Unix seconds at boot. */
  startTime: number;
  enableBatchUpdate: boolean;
}

/**
 * GET /api/status `data` (new-api's keys), derived from the live options on every call so an
 * option change shows at once. Only public values: the Turnstile site key is meant for browsers, the secret
 * keys never appear.
 */
export function buildPublicStatus(options: OptionReader, facts: ServerFacts) {
  return {
    version: facts.version,
    start_time: facts.startTime,
    email_verification: options.getBool('EmailVerificationEnabled'),
    github_oauth: options.getBool('GitHubOAuthEnabled'),
    github_client_id: options.get('GitHubClientId'),
    telegram_oauth: options.getBool('TelegramOAuthEnabled'),
    telegram_bot_name: options.get('TelegramBotName'),
    system_name: options.get('SystemName'),
    logo: options.get('Logo'),
    footer_html: options.get('Footer'),
    wechat_qrcode: options.get('WeChatAccountQRCodeImageURL'),
    wechat_login: options.getBool('WeChatAuthEnabled'),
    server_address: options.get('ServerAddress') || DEFAULT_SERVER_ADDRESS,
    price: options.getNumber('Price'),
    min_topup: options.getNumber('MinTopUp'),
    turnstile_check: options.getBool('TurnstileCheckEnabled'),
    turnstile_site_key: options.get('TurnstileSiteKey'),
    top_up_link: options.get('TopUpLink'),
    chat_link: options.get('ChatLink'),
    chat_link2: options.get('ChatLink2'),
    quota_per_unit: options.getNumber('QuotaPerUnit'),
    display_in_currency: options.getBool('DisplayInCurrencyEnabled'),
    enable_batch_update: facts.enableBatchUpdate,
    enable_drawing: options.getBool('DrawingEnabled'),
    enable_task: options.getBool('TaskEnabled'),
    enable_data_export: options.getBool('DataExportEnabled'),
    data_export_default_time: options.get('DataExportDefaultTime'),
    default_collapse_sidebar: options.getBool('DefaultCollapseSidebar'),
    // Online top-up needs the whole Epay setup; a half-configured one would send users to a dead payment page.
    enable_online_topup: options.get('PayAddress') !== '' && options.get('EpayId') !== '' && options.get('EpayKey') !== '',
    mj_notify_enabled: options.getBool('MjNotifyEnabled'),
  };
}

export type PublicStatus = ReturnType<typeof buildPublicStatus>;
