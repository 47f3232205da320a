import type { TopUpOrderEntity } from '#projections/read-models/topup-orders/topup-order.entity';

/**
 * An order as the history lists it: new-api's top_ups columns (`user_id, amount, money, trade_no, create_time,
 * status`) plus what Tollgate adds: the quota credited, the method, the money the gateway reported and when the order
 * was settled (0 while pending).
 */
export interface TopUpOrderJson {
  id: number;
  user_id: number;
  username: string;
  trade_no: string;
  amount: number;
  quota: number;
  money: number;
  paid_money: number;
  payment_method: string;
  status: string;
  create_time: number;
  complete_time: number;
}

export function toTopUpOrderJson(row: TopUpOrderEntity): TopUpOrderJson {
  return {
    id: row.id,
    user_id: row.userId,
    username: row.username,
    trade_no: row.tradeNo,
    amount: row.amount,
    quota: row.quota,
    money: row.money,
    paid_money: row.paidMoney,
    payment_method: row.paymentMethod,
    status: row.status,
    create_time: row.createTime,
    complete_time: row.completeTime,
  };
}
