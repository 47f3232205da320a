import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { userActor } from '#server/ledger/event-envelope';
import { UserActionRefusedError } from '../../user.errors';
import { normaliseName, validateProfile } from '../../user-input';
import { CreateUserCommand } from '../create-user/create-user.command';
import { CreateUserByAdminCommand } from './create-user-by-admin.command';

@CommandHandler(CreateUserByAdminCommand)
export class CreateUserByAdminHandler implements ICommandHandler<CreateUserByAdminCommand> {
  constructor(private readonly commandBus: CommandBus) {}

  async execute({ input }: CreateUserByAdminCommand): Promise<{ id: number }> {
    // new-api's order: trimmed username and password present, then the rules, then the role.
    const username = normaliseName(input.username).trim();
    const displayName = normaliseName(input.displayName);
    if (!username || !input.password) throw new InvalidParamsError();
    validateProfile({ username, password: input.password, display_name: displayName });
    if (input.role >= input.callerRole) throw new UserActionRefusedError('cannot_create_peer');
    return this.commandBus.execute(
      new CreateUserCommand({
        username,
        password: input.password,
        displayName: displayName || username,
        inviterId: 0,
        source: 'admin',
        actor: userActor(input.callerId, input.callerRole),
        correlationId: input.correlationId,
        clientIp: input.clientIp,
      }),
    );
  }
}
