import { Command } from '@nestjs/cqrs';

export interface ConfirmTopUpPaymentInput {
  /** The callback's query parameters (the first value of each). */
  params: Record<string, string>;
  correlationId: string;
  clientIp: string | null;
}

/**
 * GET /api/user/epay/notify: resolves to the plain-text answer for the gateway, `success` (the callback was
 * signed and is processed: the gateway stops repeating it) or `fail`.
 */
export class ConfirmTopUpPaymentCommand extends Command<'success' | 'fail'> {
  constructor(readonly input: ConfirmTopUpPaymentInput) {
    super();
  }
}
