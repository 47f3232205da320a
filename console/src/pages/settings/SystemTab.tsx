import { Stack } from '@mui/material';
import { OptionCard } from './options/OptionCard';
import { OptionsLoader } from './options/OptionsContext';
import type { FieldProblem, OptionField, OptionMap } from './options/optionFields';

const GENERAL: OptionField[] = [{ key: 'ServerAddress', type: 'text', address: true, wide: true, help: true }];

const WORKER: OptionField[] = [
  { key: 'WorkerUrl', type: 'text', address: true, help: true },
  { key: 'WorkerValidKey', type: 'text', secret: true },
];

const PAYMENT: OptionField[] = [
  { key: 'PayAddress', type: 'text', address: true },
  { key: 'EpayId', type: 'text' },
  { key: 'EpayKey', type: 'text', secret: true },
  { key: 'CustomCallbackAddress', type: 'text', address: true, help: true },
  { key: 'Price', type: 'number', min: 0, help: true },
  { key: 'MinTopUp', type: 'number', min: 1, integer: true },
  { key: 'TopupGroupRatio', type: 'json', help: true },
];

const LOGIN: OptionField[] = [
  { key: 'PasswordLoginEnabled', type: 'switch' },
  { key: 'PasswordRegisterEnabled', type: 'switch' },
  { key: 'EmailVerificationEnabled', type: 'switch' },
  { key: 'GitHubOAuthEnabled', type: 'switch' },
  { key: 'WeChatAuthEnabled', type: 'switch' },
  { key: 'TelegramOAuthEnabled', type: 'switch' },
  { key: 'RegisterEnabled', type: 'switch' },
  { key: 'TurnstileCheckEnabled', type: 'switch' },
];

const EMAIL_DOMAINS: OptionField[] = [
  { key: 'EmailDomainRestrictionEnabled', type: 'switch' },
  { key: 'EmailAliasRestrictionEnabled', type: 'switch' },
  { key: 'EmailDomainWhitelist', type: 'list' },
];

const SMTP: OptionField[] = [
  { key: 'SMTPServer', type: 'text' },
  { key: 'SMTPPort', type: 'number', min: 1, integer: true },
  { key: 'SMTPAccount', type: 'text' },
  { key: 'SMTPFrom', type: 'text' },
  { key: 'SMTPToken', type: 'text', secret: true },
  { key: 'SMTPSSLEnabled', type: 'switch' },
];

const GITHUB: OptionField[] = [
  { key: 'GitHubClientId', type: 'text' },
  { key: 'GitHubClientSecret', type: 'text', secret: true },
];

const WECHAT: OptionField[] = [
  { key: 'WeChatServerAddress', type: 'text', address: true },
  { key: 'WeChatServerToken', type: 'text', secret: true },
  { key: 'WeChatAccountQRCodeImageURL', type: 'text' },
];

const TELEGRAM: OptionField[] = [
  { key: 'TelegramBotToken', type: 'text', secret: true },
  { key: 'TelegramBotName', type: 'text' },
];

// Both Turnstile keys end in "Key", so the server never returns them: each is sent only when filled in.
const TURNSTILE: OptionField[] = [
  { key: 'TurnstileSiteKey', type: 'text', secret: true },
  { key: 'TurnstileSecretKey', type: 'text', secret: true },
];

/** Payment return and callback URLs are built from the server address, so it must be saved first. */
const needsServerAddress = (_draft: OptionMap, options: OptionMap): FieldProblem | null =>
  (options.ServerAddress ?? '').trim() === '' ? { message: 'app.options.server_address_required' } : null;

/** Switching password login off locks out everyone without another login method, admins included. */
const passwordLoginWarning = (keys: readonly string[], draft: OptionMap): string | null =>
  keys.includes('PasswordLoginEnabled') && draft.PasswordLoginEnabled === 'false' ? 'app.options.password_login_warning' : null;

/**
 * The super admin's system settings: server address, proxy worker, payment, login and registration switches,
 * email domain whitelist, SMTP, GitHub OAuth, WeChat server, Telegram and Turnstile.
 */
export const SystemTab = () => (
  <OptionsLoader>
    <Stack spacing={2}>
      <OptionCard id="system_general" fields={GENERAL} />
      <OptionCard id="worker" fields={WORKER} described />
      <OptionCard id="payment" fields={PAYMENT} described beforeSave={needsServerAddress} />
      <OptionCard id="login" fields={LOGIN} described confirmation={passwordLoginWarning} />
      <OptionCard id="email_domains" fields={EMAIL_DOMAINS} described />
      <OptionCard id="smtp" fields={SMTP} described />
      <OptionCard id="github" fields={GITHUB} described />
      <OptionCard id="wechat" fields={WECHAT} described />
      <OptionCard id="telegram" fields={TELEGRAM} described />
      <OptionCard id="turnstile" fields={TURNSTILE} described />
    </Stack>
  </OptionsLoader>
);
