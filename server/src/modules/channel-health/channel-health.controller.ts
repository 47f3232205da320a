import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { AdminAuth, type AuthenticatedUser, CurrentUser } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { InvalidParamsError } from '../../common/http/errors';
import { userActor } from '../../ledger/event-envelope';
import { ReadYourWrites } from '../accounts/read-your-writes';
import { StartChannelRunsCommand } from './usecases/start-channel-runs/start-channel-runs.command';
import { TestChannelCommand } from './usecases/test-channel/test-channel.command';
import { UpdateChannelBalanceCommand } from './usecases/update-channel-balance/update-channel-balance.command';

function channelId(raw: string): number {
  const id = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new InvalidParamsError();
  return id;
}

/** The channel test and balance routes of /api/channel, one channel or all, answered as new-api answers them. */
@Controller('api/channel')
export class ChannelHealthController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** `time` (seconds) sits at the top level beside success and message, as new-api answers it. */
  @Get('test/:id')
  @AdminAuth()
  async testOne(
    @Param('id') id: string,
    @Query('model') model: unknown,
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: FastifyRequest,
  ) {
    const result = await this.commandBus.execute(
      new TestChannelCommand({
        channelId: channelId(id),
        model: typeof model === 'string' ? model : undefined,
        causeKey: String(request.id),
        correlationId: String(request.id),
        actor: userActor(user.id, user.role),
        clientIp: request.ip ?? null,
        single: true,
      }),
    );
    await this.readYourWrites.wait(result.position);
    return { success: result.ok, message: result.message, time: result.time };
  }

  /**
   * Answers at once with `data: {queued}` (new-api answers no data; the console shows progress against it); the
   * channel-tests worker runs one job per channel.
   */
  @Get('test')
  @AdminAuth()
  async testAll(@Req() request: FastifyRequest) {
    return ok(await this.commandBus.execute(new StartChannelRunsCommand({ kind: 'test', runId: `test-${String(request.id)}` })));
  }

  @Get('update_balance/:id')
  @AdminAuth()
  async updateBalance(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser, @Req() request: FastifyRequest) {
    const result = await this.commandBus.execute(
      new UpdateChannelBalanceCommand({
        channelId: channelId(id),
        disableWhenEmpty: false,
        causeKey: String(request.id),
        correlationId: String(request.id),
        actor: userActor(user.id, user.role),
        clientIp: request.ip ?? null,
      }),
    );
    await this.readYourWrites.wait(result.position);
    return { success: true, message: '', balance: result.balance };
  }

  @Get('update_balance')
  @AdminAuth()
  async updateAllBalances(@Req() request: FastifyRequest) {
    return ok(await this.commandBus.execute(new StartChannelRunsCommand({ kind: 'balance', runId: `balance-${String(request.id)}` })));
  }
}
