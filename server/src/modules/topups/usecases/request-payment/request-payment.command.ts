import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { PurchaseForm } from '../../topup-gateway';

export interface RequestTopUpPaymentInput {
  userId: number;
  username: string;
  group: string;
  amount: number;
  paymentMethod: string;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/** POST /api/user/pay: places a pending order and resolves to the signed form the browser posts to the gateway. */
export class RequestTopUpPaymentCommand extends Command<PurchaseForm> {
  constructor(readonly input: RequestTopUpPaymentInput) {
    super();
  }
}
