import { DomainError } from '../../common/http/errors';

/**
 * Every refusal the identity routes give, keyed by a stable code. The texts are new-api's, because the
 * console shows them verbatim; a few are ours where new-api leaked a raw Go error or had no check at all
 * (marked "ours"; docs/console-api.md lists these differences).
 */
export const AUTH_MESSAGES = {
  password_login_disabled: '管理员关闭了密码登录',
  invalid_credentials: '用户名或密码错误，或用户已被封禁',
  register_disabled: '管理员关闭了新用户注册',
  password_register_disabled: '管理员关闭了通过密码进行注册，请使用第三方账户验证的形式进行注册',
  email_verification_required: '管理员开启了邮箱验证，请输入邮箱地址和验证码',
  verification_code_invalid: '验证码错误或已过期',
  username_taken: '用户名已存在，或已注销',
  email_domain_not_allowed:
    "The administrator has enabled the email domain name whitelist, and your email address is not allowed due to special symbols or it's not in the whitelist.",
  email_alias_not_allowed: '管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。',
  email_taken: '邮箱地址已被占用',
  email_not_registered: '该邮箱地址未注册',
  reset_link_invalid: '重置链接非法或已过期',
  oauth_state_mismatch: 'state is empty or not same',
  github_disabled: '管理员未开启通过 GitHub 登录以及注册',
  github_already_bound: '该 GitHub 账户已被绑定',
  github_unreachable: '无法连接至 GitHub 服务器，请稍后重试！',
  github_invalid_response: '返回值非法，用户字段为空，请稍后重试！',
  wechat_disabled: '管理员未开启通过微信登录以及注册',
  wechat_already_bound: '该微信账号已被绑定',
  /** ours: new-api answered with the raw network error. */
  wechat_unreachable: '无法连接至微信服务器，请稍后重试！',
  telegram_disabled: '管理员未开启通过 Telegram 登录以及注册',
  telegram_invalid: '无效的请求',
  /** ours: new-api had no auth_date freshness check (a leaked login link worked forever). */
  telegram_expired: 'Telegram 登录信息已过期，请重新登录',
  telegram_not_bound: '该 Telegram 账户未绑定',
  telegram_already_bound: '该 Telegram 账户已被绑定',
  user_deleted: '用户已注销',
  user_disabled: '用户已被封禁',
  turnstile_token_empty: 'Turnstile token 为空',
  turnstile_failed: 'Turnstile 校验失败，请刷新重试！',
} as const;

export type AuthErrorCode = keyof typeof AUTH_MESSAGES;

export class AuthError extends DomainError {
  constructor(code: AuthErrorCode, httpStatus = 200) {
    super(AUTH_MESSAGES[code], code, httpStatus);
  }
}
