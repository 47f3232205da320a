import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { TopUpEvent, TopUpStatusValue } from '#server/modules/topups/topup.events';
import { evolve, initialTopUpState, type TopUpState } from '#server/modules/topups/topup.state';

/** The columns of `topup_orders`, in the order apply's INSERT and the bulk fold's COPY write them. */
export const TOPUP_ORDER_COLUMNS = [
  'trade_no',
  'id',
  'user_id',
  'username',
  'amount',
  'quota',
  'money',
  'payment_method',
  'status',
  'paid_money',
  'gateway_trade_no',
  'create_time',
  'complete_time',
  'revision',
] as const;

/** What an INSERT onto an existing trade number (`ON CONFLICT (trade_no) DO UPDATE SET …`) overwrites; the rest stays. */
export const TOPUP_ORDER_CONFLICT_COLUMNS = ['status', 'paid_money', 'gateway_trade_no', 'complete_time', 'revision'] as const;

/** A `topup_orders` row: as Postgres returns it (bigint columns as text) or as the bulk fold holds it (numbers). */
export interface TopUpOrderRow {
  trade_no: string;
  id: string | number;
  user_id: number;
  username: string;
  amount: string | number;
  quota: string | number;
  money: number;
  payment_method: string;
  status: string;
  paid_money: number;
  gateway_trade_no: string;
  create_time: string | number;
  complete_time: string | number;
  revision: number;
}

function stateOf(row: TopUpOrderRow): TopUpState {
  return {
    ordered: true,
    tradeNo: row.trade_no,
    userId: row.user_id,
    username: row.username,
    amount: Number(row.amount),
    quota: Number(row.quota),
    money: row.money,
    paymentMethod: row.payment_method as TopUpState['paymentMethod'],
    createdTime: Number(row.create_time),
    status: row.status as TopUpStatusValue,
    paidMoney: row.paid_money,
    gatewayTradeNo: row.gateway_trade_no,
    completedTime: Number(row.complete_time),
  };
}

/**
 * Pure: the row a top-up event (decoded: `decoded`) writes, given the row of its stream's trade number (`row`,
 * undefined: none), with the same `evolve` the command side decides with; null when there is nothing to write: a
 * settlement without its order (the order is the stream's first event), or an event the row already holds (the
 * runner applies each event once; this only keeps a hand-run replay from applying one twice). The id is the
 * position of the order's TopUpOrdered. Written with INSERT … ON CONFLICT (trade_no): see topUpOrderOnConflict.
 */
export function topUpOrderRowAfter(row: TopUpOrderRow | undefined, decoded: TopUpEvent, event: RecordedEvent): TopUpOrderRow | null {
  if (decoded.type !== 'TopUpOrdered' && !row) return null;
  if (row && row.revision >= event.revision) return null;
  const next = evolve(row ? stateOf(row) : initialTopUpState, decoded);
  return {
    trade_no: next.tradeNo,
    id: row ? Number(row.id) : event.position,
    user_id: next.userId,
    username: next.username,
    amount: next.amount,
    quota: next.quota,
    money: next.money,
    payment_method: next.paymentMethod,
    status: next.status,
    paid_money: next.paidMoney,
    gateway_trade_no: next.gatewayTradeNo,
    create_time: next.createdTime,
    complete_time: next.completedTime,
    revision: event.revision,
  };
}

/** Pure: the stored row after `written` was inserted onto its trade number: TOPUP_ORDER_CONFLICT_COLUMNS taken from it. */
export function topUpOrderOnConflict(stored: TopUpOrderRow, written: TopUpOrderRow): TopUpOrderRow {
  const merged = { ...stored } as Record<string, unknown>;
  for (const column of TOPUP_ORDER_CONFLICT_COLUMNS) merged[column] = written[column];
  return merged as unknown as TopUpOrderRow;
}
