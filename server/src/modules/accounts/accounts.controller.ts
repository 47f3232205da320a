import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { InvalidParamsError } from '../../common/http/errors';
import { userActor } from '../../ledger/event-envelope';
import { TransferAffiliateQuotaCommand } from './usecases/transfer-affiliate-quota/transfer-affiliate-quota.command';

/** `{quota:int}`, required and non-zero like new-api's `binding:"required"`. */
const transferBody = z.object({ quota: z.number().int() });

/** Account routes that live under /api/user (new-api's paths). */
@Controller('api/user')
export class AccountsController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('aff_transfer')
  @HttpCode(200)
  @UserAuth()
  async transferAffiliateQuota(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const parsed = body && typeof body === 'object' && !Array.isArray(body) ? transferBody.safeParse(body) : null;
    if (!parsed?.success || parsed.data.quota === 0) throw new InvalidParamsError();
    await this.commandBus.execute(
      new TransferAffiliateQuotaCommand({
        userId: user.id,
        username: user.username,
        amount: parsed.data.quota,
        actor: userActor(user.id, user.role),
        correlationId: String(request.id),
        clientIp: request.ip ?? null,
      }),
    );
    return ok(undefined, '划转成功');
  }
}
