/** One helper per stream category, so stream names are spelt in one place. */
export const accountStream = (userId: number) => `account-${userId}`;
export const tokenStream = (tokenId: number) => `token-${tokenId}`;
export const redemptionStream = (id: number) => `redemption-${id}`;
/** One online top-up order (modules/topups); the key is the trade number, not a number: streamKey does not apply. */
export const topUpStream = (tradeNo: string) => `topup-order-${tradeNo}`;
export const channelStream = (channelId: number) => `channel-${channelId}`;

export function streamCategory(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash < 0 ? streamId : streamId.slice(0, dash);
}

/**
 * The number after the category's dash, as `Number` reads that text (NaN when it is not one; callers check). A
 * whole number of at most 15 digits, every account, token and channel stream, is read digit by digit without the
 * slice: a rebuild asks this about five times per charge.
 */
export function streamKey(streamId: string): number {
  const start = streamId.indexOf('-') + 1;
  const end = streamId.length;
  if (end > start && end - start <= 15) {
    let value = 0;
    for (let at = start; at < end; at++) {
      const digit = streamId.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) return Number(streamId.slice(start));
      value = value * 10 + digit;
    }
    return value;
  }
  return Number(streamId.slice(start));
}
