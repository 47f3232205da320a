import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ChannelEntity } from '../../channel.entity';
import { ChannelNotFoundError } from '../../channel.errors';
import { ChannelWrites } from '../../channel-writes';
import { ChangeChannelStatusCommand, type ChangeChannelStatusResult } from './change-channel-status.command';

@CommandHandler(ChangeChannelStatusCommand)
export class ChangeChannelStatusHandler implements ICommandHandler<ChangeChannelStatusCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
  ) {}

  async execute({ input }: ChangeChannelStatusCommand): Promise<ChangeChannelStatusResult> {
    const result = await this.dataSource.transaction(async (manager) => {
      const row = await manager.findOne(ChannelEntity, { where: { id: input.channelId }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new ChannelNotFoundError();
      const before = await this.writes.currentStatus(input.channelId);
      const decision = await this.writes.decideStatus(input.channelId, input.command, input);
      if (decision.state.status !== before) await this.writes.setAbilitiesEnabled(manager, input.channelId, decision.state.status);
      return { status: decision.state.status, appended: decision.appended, position: decision.position };
    });
    if (result.appended) await this.writes.settled(result.position, [input.channelId]);
    return { status: result.status, appended: result.appended, position: result.position };
  }
}
