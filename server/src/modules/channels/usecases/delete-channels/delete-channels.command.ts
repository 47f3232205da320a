import { Command } from '@nestjs/cqrs';

/** POST /api/channel/batch: deletes the listed channels; answers how many existed and were deleted. */
export class DeleteChannelsCommand extends Command<number> {
  constructor(readonly ids: readonly number[]) {
    super();
  }
}
