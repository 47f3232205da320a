import type { AccountEvent } from '#server/modules/accounts/account.events';
import { formatLogQuota, type QuotaDisplay } from '#server/modules/accounts/quota-display';
import { LogType } from './log.entity';

export interface LogLine {
  type: number;
  content: string;
}

/**
 * The log row an account event shows as, worded as new-api words it, or null for events that
 * have no row. Deliberate improvement: an affiliate transfer gets a system row; new-api writes none.
 */
export function accountLogLine(event: AccountEvent, display: QuotaDisplay): LogLine | null {
  const amount = (quota: number) => formatLogQuota(quota, display);
  switch (event.type) {
    case 'QuotaGranted':
      if (event.data.kind === 'new_user') return { type: LogType.System, content: `新用户注册赠送 ${amount(event.data.amount)}` };
      if (event.data.kind === 'invitee_gift') return { type: LogType.System, content: `使用邀请码赠送 ${amount(event.data.amount)}` };
      // new-api writes no row for the root account's initial quota; the event is the audit trail.
      return null;
    case 'InviterRewarded':
      return { type: LogType.System, content: `邀请用户赠送 ${amount(event.data.amount)}` };
    case 'AffiliateQuotaTransferred':
      return { type: LogType.System, content: `邀请额度划转 ${amount(event.data.amount)}` };
    case 'QuotaAdjustedByAdmin':
      return {
        type: LogType.Manage,
        // No space between the two amounts: new-api's format string is "从 %s修改为 %s".
        content: `管理员将用户额度从 ${amount(event.data.before)}修改为 ${amount(event.data.after)}`,
      };
    case 'QuotaRedeemed':
      return { type: LogType.TopUp, content: `通过兑换码充值 ${amount(event.data.amount)}，兑换码ID ${event.data.redemptionId}` };
    case 'QuotaToppedUp':
      // new-api: "使用在线充值成功，充值金额: %v，支付金额：%f" (the money with Go's %f: 6 decimals).
      return {
        type: LogType.TopUp,
        content: `使用在线充值成功，充值金额: ${amount(event.data.amount)}，支付金额：${event.data.money.toFixed(6)}`,
      };
    case 'QuotaRefunded':
      // new-api: "构图失败 %s，补偿 %s" for Midjourney; "异步任务执行失败 %s，补偿 %s" for Suno.
      return {
        type: LogType.System,
        content: `${event.data.platform === 'midjourney' ? '构图失败' : '异步任务执行失败'} ${event.data.upstreamTaskId}，补偿 ${amount(event.data.amount)}`,
      };
  }
}
