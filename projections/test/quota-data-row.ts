import type { RecordedEvent } from '../../server/src/ledger/event-store.port';

/** What puts charges of user 9 in one quota_data row: gpt-4o, named `acc`, in the hour that starts at 1_732_600_800. */
export const IN_ONE_ROW = { createdAt: 1_732_600_900, modelName: 'gpt-4o', username: 'acc' };

/** Three charges for that row: 10, 20 and 30 quota, 7, 11 and 15 tokens. */
export const THREE_CHARGES = [
  { quota: 10, promptTokens: 3, completionTokens: 4 },
  { quota: 20, promptTokens: 5, completionTokens: 6 },
  { quota: 30, promptTokens: 7, completionTokens: 8 },
] as const;

/** The row THREE_CHARGES make, counted once each: its id the position of the first. */
export function rowOfThreeCharges(first: RecordedEvent) {
  return {
    id: first.position,
    user_id: 9,
    username: 'acc',
    model_name: 'gpt-4o',
    created_at: 1_732_600_800,
    count: 3,
    quota: 60,
    token_used: 33,
  };
}
