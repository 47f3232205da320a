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

export function streamKey(streamId: string): number {
  return Number(streamId.slice(streamId.indexOf('-') + 1));
}
