import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { QUOTA_ADMISSION, type QuotaAdmission } from '../../accounts';
import { Role, UserStatus } from '../../users/user.entity';
import { TokenAuthError } from '../token.errors';
import { TokenGroupPolicy } from '../token-groups';
import { isWellFormedTokenKey, maskTokenKey, readRelayKey } from '../token-key';
import { NEVER_EXPIRES, TokenStatus } from '../token-status';
import { MarkTokenLapsedCommand } from '../usecases/mark-token-lapsed/mark-token-lapsed.command';
import { isIpAllowed } from './allowed-ips';
import { type CachedToken, TokenAuthCache } from './token-auth-cache';

export interface RelayCaller {
  token: { id: number; name: string; key: string; group: string; unlimitedQuota: boolean; modelLimits: ReadonlySet<string> | null };
  user: { id: number; username: string; group: string; role: number };
  /** Pricing and channel-selection group: the token's group when set, else the user's. */
  group: string;
  /** The admin-only `sk-KEY-CHANNELID` form: the forced channel id, else null. */
  specificChannelId: number | null;
}

export interface AuthenticateOptions {
  /**
   * TokenAuth only, without the token part of Distribute (the IP allow list, the token group's usability, the forced
   * channel id's syntax): new-api's model-list and billing routes, which do not run Distribute. A non-admin's
   * `sk-KEY-ID` is still refused (that check is TokenAuth's); an admin's forced id is ignored.
   */
  tokenAuthOnly?: boolean;
  /**
   * Leave the token's remaining quota to the caller's atomic reservation (the relay): it saves a Redis round trip
   * per request, and the relay turns a reservation refused for an empty token into `tokenExhausted()`.
   */
  quotaByReservation?: boolean;
}

/** new-api's messages, word for word (clients and the console match on them). */
export const TokenAuthMessages = {
  missing: '未提供令牌',
  invalid: '无效的令牌',
  exhaustedStatus: (key: string) => `该令牌额度已用尽 TokenStatusExhausted[${maskTokenKey(key)}]`,
  expired: '该令牌已过期',
  unavailable: '该令牌状态不可用',
  exhausted: (key: string, remain: number) =>
    `[${maskTokenKey(key)}] 该令牌额度已用尽 !token.UnlimitedQuota && token.RemainQuota = ${remain}`,
  userBanned: '用户已被封禁',
  channelNotAllowed: '普通用户不支持指定渠道',
  invalidChannelId: '无效的渠道 Id',
  ipNotAllowed: '您的 IP 不在令牌允许访问的列表中',
  modelNotAllowed: (model: string) => `该令牌无权访问模型 ${model}`,
} as const;

/**
 * Token authentication of relay requests: new-api's TokenAuth middleware and the token part of Distribute
 * (IP allow list, token group, forced channel id syntax, model limits), in new-api's order, with its
 * messages and statuses, all in the `abort` error shape.
 *
 * The common case makes no database round trip: token and user come from TokenAuthCache, and the one live
 * figure (the token's available quota, for limited tokens) from the admission service's Redis state.
 */
@Injectable()
export class TokenAuthenticator {
  private readonly logger = new Logger(TokenAuthenticator.name);

  constructor(
    private readonly cache: TokenAuthCache,
    @Inject(QUOTA_ADMISSION) private readonly admission: QuotaAdmission,
    private readonly groups: TokenGroupPolicy,
    private readonly commandBus: CommandBus,
  ) {}

  /**
   * Raw Authorization header value ("Bearer sk-…", also accepts the key without "Bearer "/"sk-"). Throws
   * TokenAuthError with new-api's messages and statuses. `model` (the name the client asked for, before
   * mapping) is checked against the token's model limits when given. `options.tokenAuthOnly` leaves the checks
   * new-api makes in Distribute out (IP allow list, token group, forced channel id), which GET /v1/models,
   * /v1/models/:model and the billing routes do not run (so, as in new-api, they ignore the IP allow list).
   */
  async authenticate(
    authorization: string | undefined,
    clientIp: string,
    model?: string,
    options?: AuthenticateOptions,
  ): Promise<RelayCaller> {
    const { key, channelPart } = readRelayKey({ authorization });
    if (key === '') throw new TokenAuthError(401, TokenAuthMessages.missing);
    // A key and user this process has cached cost no promise: the relay's common case (three awaits fewer per request).
    const token = isWellFormedTokenKey(key) ? (this.cache.localToken(key) ?? (await this.cache.token(key))) : null;
    if (!token) throw new TokenAuthError(401, TokenAuthMessages.invalid);
    const lapsed = this.checkTokenUsable(token, options?.quotaByReservation === true);
    if (lapsed) await lapsed;

    const user = this.cache.localUser(token.userId) ?? (await this.cache.user(token.userId));
    if (!user || user.deleted || user.status !== UserStatus.Enabled) throw new TokenAuthError(403, TokenAuthMessages.userBanned);
    if (channelPart !== undefined && user.role < Role.Admin) throw new TokenAuthError(403, TokenAuthMessages.channelNotAllowed);

    const distribute = options?.tokenAuthOnly !== true;
    if (distribute && token.allowList && !isIpAllowed(token.allowList, clientIp))
      throw new TokenAuthError(403, TokenAuthMessages.ipNotAllowed);
    if (distribute && token.group) {
      const verdict = this.groups.judge(token.group);
      if (!verdict.usable) throw new TokenAuthError(403, verdict.message);
    }
    let specificChannelId: number | null = null;
    if (distribute && channelPart !== undefined) {
      // Go's strconv.Atoi: an optional sign and digits. A channel id is positive; anything else names no channel.
      if (!/^[+-]?\d{1,10}$/.test(channelPart) || Number(channelPart) <= 0)
        throw new TokenAuthError(400, TokenAuthMessages.invalidChannelId);
      specificChannelId = Number(channelPart);
    }
    // A forced channel skips the token's model limits, as in new-api (the admin chose the channel).
    if (model !== undefined && specificChannelId === null && token.modelSet && !token.modelSet.has(model)) {
      throw new TokenAuthError(403, TokenAuthMessages.modelNotAllowed(model));
    }

    return {
      token: {
        id: token.id,
        name: token.name,
        key: token.key,
        group: token.group,
        unlimitedQuota: token.unlimitedQuota,
        modelLimits: token.modelSet,
      },
      user: { id: user.id, username: user.username, group: user.group, role: user.role },
      group: token.group || user.group,
      specificChannelId,
    };
  }

  /**
   * Status, expiry and quota, in new-api's order. Expired and exhausted tokens are marked on the way. Throws at once
   * when the answer needs no I/O; returns a promise only when it does (marking a lapsed token, the quota probe), so
   * a usable token with quota by reservation costs no promise.
   */
  private checkTokenUsable(token: CachedToken, quotaByReservation: boolean): Promise<void> | undefined {
    if (token.status === TokenStatus.Exhausted) throw new TokenAuthError(401, TokenAuthMessages.exhaustedStatus(token.key));
    if (token.status === TokenStatus.Expired) throw new TokenAuthError(401, TokenAuthMessages.expired);
    if (token.status !== TokenStatus.Enabled) throw new TokenAuthError(401, TokenAuthMessages.unavailable);
    const now = Math.floor(Date.now() / 1000);
    if (token.expiredTime !== NEVER_EXPIRES && token.expiredTime < now) {
      return this.markLapsed(token.id, TokenStatus.Expired, now).then(() => {
        throw new TokenAuthError(401, TokenAuthMessages.expired);
      });
    }
    if (!token.unlimitedQuota && !quotaByReservation) return this.checkTokenQuota(token, now);
    return undefined;
  }

  private async checkTokenQuota(token: CachedToken, now: number): Promise<void> {
    const available = (await this.admission.available(token.userId, token.id)).token ?? 0;
    if (available <= 0) {
      await this.markLapsed(token.id, TokenStatus.Exhausted, now);
      throw new TokenAuthError(401, TokenAuthMessages.exhausted(token.key, available));
    }
  }

  /**
   * A reservation was refused because the token has nothing left (`available` ≤ 0): mark it exhausted (status 4)
   * and answer what authentication would have answered.
   */
  async tokenExhausted(caller: { token: { id: number; key: string } }, available: number): Promise<TokenAuthError> {
    await this.markLapsed(caller.token.id, TokenStatus.Exhausted, Math.floor(Date.now() / 1000));
    return new TokenAuthError(401, TokenAuthMessages.exhausted(caller.token.key, available));
  }

  /**
   * new-api marks only without Redis; we always do (the console then shows why the key stopped working).
   * A failure to mark never changes the answer: the request is refused either way.
   */
  private async markLapsed(tokenId: number, status: 3 | 4, now: number): Promise<void> {
    try {
      await this.commandBus.execute(new MarkTokenLapsedCommand(tokenId, status, now));
    } catch (error) {
      this.logger.warn(`token ${tokenId}: could not mark status ${status}: ${String(error)}`);
    }
  }
}
