/**
 * The one charge of a relayed request, appended to `account-{userId}` (accountStream) with
 * `expectedRevision: 'any'` and the id quotaConsumedEventId(requestId) (the request id itself), so a retried
 * settlement appends nothing new. Stored compact and read back only through quota-consumed-event-codec.ts
 * (quotaConsumedEvent / quotaConsumedData): this interface is the decoded form, whatever shape the event was stored in. Folded by the account-balances projection (quota −, used_quota +, request_count +1), the
 * token-balances projection (remain_quota − unless unlimited, used_quota +, accessed_time), the channel usage
 * (used_quota +) and the logs projection (a type 2 "consume" row whose `other` JSON is built from these fields).
 *
 * Amounts are quota units, safe integers. A request that failed before the upstream answered appends nothing.
 *
 * The payload carries facts, not renderings: the log row's wording (`content`) and its `other` JSON are derived
 * from the ratios and counts by the logs projection (consumeLogContent, consumeLogOther), so every charge is about
 * 40 % smaller in the journal, on the wire to Postgres, in the ledger's WAL and in the projector's parse, and it
 * stays a one-byte string in V8 (the Chinese wording made the whole serialised event a two-byte one). Events
 * written before this change carry `content`, `other` and `quotaDisplay`; readers use them when present.
 */
export const QUOTA_CONSUMED = 'QuotaConsumed' as const;

/**
 * Where a charge's counts came from: `upstream`, the upstream's own usage report; `estimated`, counted by the gateway
 * (the tokenizer over the prompt and what was delivered, or the request itself: an image's n, a speech input).
 */
export const USAGE_SOURCES = ['upstream', 'estimated'] as const;
export type UsageSource = (typeof USAGE_SOURCES)[number];

/**
 * Why the charged request ended: `completed`, the answer was whole; `client_gone`, the client left before the end
 * (the upstream's answer was read on for at most RELAY_DRAIN_AFTER_CLIENT_GONE_MS); `upstream_error`, the upstream
 * sent an error (or unreadable framing) mid-stream; `timeout`, the stream stayed silent for STREAMING_TIMEOUT;
 * `cut_stream`, the upstream's stream broke off before its end.
 */
export const CHARGE_END_REASONS = ['completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream'] as const;
export type ChargeEndReason = (typeof CHARGE_END_REASONS)[number];

export interface QuotaConsumedData {
  /** The relay request id (also the `X-Oneapi-Request-Id` answer header and the log's request_id). */
  requestId: string;
  userId: number;
  /** The user's name when the request was settled (the log row's username). */
  username: string;
  tokenId: number;
  tokenName: string;
  /** The group the price was taken in (the token's group, else the user's). */
  group: string;
  /** The model the client asked for. */
  modelName: string;
  /** The model sent upstream after model_mapping. */
  upstreamModel: string;
  /** The channel that answered. */
  channelId: number;
  channelName: string;
  /** Every channel tried, in order, the answering one last (new-api's `other.admin_info.use_channel`). */
  channelPath: number[];
  /** 'chat' | 'completions' | 'embeddings' | 'images' | 'audio_speech' | 'audio_transcription' | 'moderations' | 'rerank' … */
  relayMode: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
  /** Fixed price per call in dollars when the model has one (ModelPrice), else -1. */
  modelPrice: number;
  /** What was charged. */
  quota: number;
  /** Unlimited tokens charge the user but not the token. */
  tokenUnlimited: boolean;
  isStream: boolean;
  /** Seconds from admission to the end of the answer. */
  useTimeSeconds: number;
  /** Milliseconds to the first streamed byte; 0 when not streamed. */
  firstTokenMs: number;
  /**
   * The log row's human line, only when it cannot be derived from the fields above (an image generation adds its
   * size and quality). Absent: consumeLogContent(data) ("模型倍率 …"). Older events always carry it.
   */
  content?: string;
  /** Older events only: the log row's `other` keys as the relay computed them (now derived: consumeLogOther). */
  other?: Record<string, unknown>;
  /** Unix seconds when the request was admitted. */
  createdAt: number;
  /**
   * The LogConsumeEnabled option when the request was settled: false → the logs projection writes no type 2 row
   * for it (new-api writes no consume logs while the option is off). Recorded in the event so a replay decides the
   * same way whatever the option says later. Written only when false; absent reads as true.
   */
  logConsume?: boolean;
  /**
   * The DataExportEnabled option when the request was settled: false → the quota-data projection leaves the
   * dashboard's hourly row alone (as does logConsume false). Recorded like logConsume; absent reads as true.
   */
  dataExport?: boolean;
  /**
   * The charge is less than the answer's reported usage priced: its completion was cut to the client's max_tokens,
   * or it took only what the balance had left (docs/ledger.md, "What a balance can go below zero by"). Written only
   * when true; absent reads as false.
   */
  billingCapped?: boolean;
  /**
   * Where the counts came from (see USAGE_SOURCES). Always written by the relay; absent on events written before it
   * was recorded, and then unknown (readers never guess it: quotaConsumedUsageSource answers undefined).
   */
  usageSource?: UsageSource;
  /** Why the request ended (see CHARGE_END_REASONS). Always written by the relay; absent on older events: unknown. */
  endReason?: ChargeEndReason;
}
