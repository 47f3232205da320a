import type { MailJobData } from '../mail/mail.constants';
import { VERIFICATION_TTL_SECONDS } from './verification/verification-code.store';

const VALID_MINUTES = VERIFICATION_TTL_SECONDS / 60;

/** new-api pasted values into HTML unescaped; an address like o'brien@x.io broke the link. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

/** The email-verification mail: subject "<SystemName>邮箱验证邮件", the code in bold. */
export function verificationMail(systemName: string, to: string, code: string): MailJobData {
  const name = escapeHtml(systemName);
  return {
    to,
    subject: `${systemName}邮箱验证邮件`,
    html:
      `<p>您好，你正在进行${name}邮箱验证。</p>` +
      `<p>您的验证码为: <strong>${escapeHtml(code)}</strong></p>` +
      `<p>验证码 ${VALID_MINUTES} 分钟内有效，如果不是本人操作，请忽略。</p>`,
  };
}

/** `<ServerAddress>/user/reset?email=..&token=..`, with the address URL-encoded (new-api did not). */
export function passwordResetLink(serverAddress: string, email: string, token: string): string {
  const query = new URLSearchParams({ email, token }).toString();
  return `${serverAddress.replace(/\/+$/, '')}/user/reset?${query}`;
}

/** The password-reset mail: subject "<SystemName>密码重置", the link twice (clickable and plain). */
export function passwordResetMail(systemName: string, to: string, link: string): MailJobData {
  const name = escapeHtml(systemName);
  const href = escapeHtml(link);
  return {
    to,
    subject: `${systemName}密码重置`,
    html:
      `<p>您好，你正在进行${name}密码重置。</p>` +
      `<p>点击 <a href="${href}">此处</a> 进行密码重置。</p>` +
      `<p>如果链接无法点击，请尝试点击下面的链接或将其复制到浏览器中打开：<br> ${href} </p>` +
      `<p>重置链接 ${VALID_MINUTES} 分钟内有效，如果不是本人操作，请忽略。</p>`,
  };
}
