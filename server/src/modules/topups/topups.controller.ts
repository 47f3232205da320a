import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { userActor } from '../../ledger/event-envelope';
import { queryText } from '../users/user-input';
import { TopUpRefusedError } from './topup.errors';
import { parseTopUpPage, parseTopUpUserFilter } from './topup-list-input';
import { decodeTopUpBody } from './topup-pricing';
import { ConfirmTopUpPaymentCommand } from './usecases/confirm-payment/confirm-payment.command';
import { ListTopUpOrdersQuery } from './usecases/read-topups/read-topups.query';
import { QuoteTopUpQuery } from './usecases/quote-topup/quote-topup.query';
import { RequestTopUpPaymentCommand } from './usecases/request-payment/request-payment.command';

/** `/pay` and `/amount` answer `{message:"success"|"error", data, url?}`: no `success` key, the error text in `data`. */
async function payEnvelope<T extends object>(run: () => Promise<T>): Promise<T | { message: 'error'; data: string }> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TopUpRefusedError) return { message: 'error', data: error.message };
    throw error;
  }
}

/** The first value of each query parameter, as Go's `url.Values.Get` reads it. */
function firstValues(query: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of Object.keys((query as Record<string, unknown>) ?? {})) params[name] = queryText(query, name);
  return params;
}

/** Online top-up through Epay: quote, order, the gateway's callback, and the order history (ours). */
@Controller('api/user')
export class TopUpsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** `data` = the payable money with 2 decimals, a string. */
  @Post('amount')
  @HttpCode(200)
  @UserAuth()
  amount(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown) {
    return payEnvelope(async () => {
      const { amount } = decodeTopUpBody(body);
      return { message: 'success' as const, data: await this.queryBus.execute(new QuoteTopUpQuery(amount, user.group)) };
    });
  }

  /** `data` = the signed form fields, `url` = the gateway's submit.php; the console posts a hidden form there. */
  @Post('pay')
  @HttpCode(200)
  @UserAuth()
  pay(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    return payEnvelope(async () => {
      const { amount, paymentMethod } = decodeTopUpBody(body);
      const form = await this.commandBus.execute(
        new RequestTopUpPaymentCommand({
          userId: user.id,
          username: user.username,
          group: user.group,
          amount,
          paymentMethod,
          actor: userActor(user.id, user.role),
          correlationId: String(request.id),
          clientIp: request.ip ?? null,
        }),
      );
      return { message: 'success' as const, data: form.params, url: form.url };
    });
  }

  /** The gateway's signed GET callback: plain text `success` or `fail`. */
  @Get('epay/notify')
  async notify(@Query() query: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const answer = await this.commandBus.execute(
      new ConfirmTopUpPaymentCommand({ params: firstValues(query), correlationId: String(request.id), clientIp: request.ip ?? null }),
    );
    await reply.code(200).type('text/plain; charset=utf-8').send(answer);
  }

  /** Ours: one's own orders, newest first (`p` 0-based, `page_size` 1..100, default 10; a bare array). */
  @Get('topup/self')
  @UserAuth()
  async self(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    return ok(await this.queryBus.execute(new ListTopUpOrdersQuery(user.id, parseTopUpPage(query))));
  }

  /** Ours (admins): everyone's orders, or one user's with `user_id`, paged as /topup/self. */
  @Get('topup')
  @AdminAuth()
  async all(@Query() query: unknown) {
    const userId = parseTopUpUserFilter(query);
    return ok(await this.queryBus.execute(new ListTopUpOrdersQuery(userId, parseTopUpPage(query))));
  }
}
