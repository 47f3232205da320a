import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, topUpStream } from '#server/ledger/streams';
import { TopUpEventType, type TopUpStatusValue } from '#server/modules/topups/topup.events';
import { toTopUpEvent } from '#server/modules/topups/topup-event-codec';
import { evolve, initialTopUpState, type TopUpState } from '#server/modules/topups/topup.state';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';

const TOPUP_ORDER_PREFIX = topUpStream('');

interface TopUpOrderRow {
  trade_no: string;
  id: string;
  user_id: number;
  username: string;
  amount: string;
  quota: string;
  money: number;
  payment_method: string;
  status: string;
  paid_money: number;
  gateway_trade_no: string;
  create_time: string;
  complete_time: string;
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
 * `topup_orders`: each `topup-order-{tradeNo}` stream folded with the same `evolve` the command side decides with.
 * A row's id is its TopUpOrdered's ledger position, so a rebuild writes the rows (and ids) the live projection wrote.
 */
@ReadModelProjection()
export class TopUpOrdersProjection implements Projection {
  readonly name = 'topup-orders';
  readonly tables = ['topup_orders'];
  readonly handles = Object.values(TopUpEventType);

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'topup') return;
    const decoded = toTopUpEvent(event);
    const tradeNo = event.streamId.slice(TOPUP_ORDER_PREFIX.length);
    const rows: TopUpOrderRow[] = await manager.query('SELECT * FROM topup_orders WHERE trade_no = $1', [tradeNo]);
    const row = rows[0];
    // A settlement without its order cannot be (the order is the stream's first event); nothing to show for it.
    if (decoded.type !== 'TopUpOrdered' && !row) return;
    // The runner applies each event once; this guard only keeps a hand-run replay from applying one twice.
    if (row && row.revision >= event.revision) return;
    const next = evolve(row ? stateOf(row) : initialTopUpState, decoded);
    const id = row ? Number(row.id) : event.position;
    await manager.query(
      `INSERT INTO topup_orders (trade_no, id, user_id, username, amount, quota, money, payment_method, status, paid_money,
         gateway_trade_no, create_time, complete_time, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (trade_no) DO UPDATE SET status = $9, paid_money = $10, gateway_trade_no = $11, complete_time = $13, revision = $14`,
      [
        next.tradeNo,
        id,
        next.userId,
        next.username,
        next.amount,
        next.quota,
        next.money,
        next.paymentMethod,
        next.status,
        next.paidMoney,
        next.gatewayTradeNo,
        next.createdTime,
        next.completedTime,
        event.revision,
      ],
    );
  }
}
