import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AdminAuth, type AuthenticatedUser, CurrentUser } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { InvalidParamsError } from '../../common/http/errors';
import { userActor } from '../../ledger/event-envelope';
import { decodeBody, isRowId, jsonInteger, jsonText, parseGoInt, queryText } from '../users/user-input';
import { ChannelInputError, ChannelNotFoundError } from './channel.errors';
import { decodeChannelBody, newChannelsFrom } from './channel-input';
import { allCatalogueModels } from './channel-model-catalogue';
import type { ChannelWriteContext } from './channel-writes';
import { CopyChannelCommand } from './usecases/copy-channel/copy-channel.command';
import { CreateChannelsCommand } from './usecases/create-channels/create-channels.command';
import { DeleteChannelCommand } from './usecases/delete-channel/delete-channel.command';
import { DeleteChannelsCommand } from './usecases/delete-channels/delete-channels.command';
import { DeleteDisabledChannelsCommand } from './usecases/delete-disabled-channels/delete-disabled-channels.command';
import { FetchUpstreamModelsQuery } from './usecases/fetch-upstream-models/fetch-upstream-models.query';
import { FixAbilitiesCommand } from './usecases/fix-abilities/fix-abilities.command';
import { GetChannelQuery } from './usecases/get-channel/get-channel.query';
import { ListChannelsQuery } from './usecases/list-channels/list-channels.query';
import { SearchChannelsQuery } from './usecases/search-channels/search-channels.query';
import { UpdateChannelCommand } from './usecases/update-channel/update-channel.command';

const MAX_PAGE = 100_000_000;
const MAX_PAGE_SIZE = 100_000;
const ITEMS_PER_PAGE = 10;
const ROOT_ROLE = 100;
const COPY_SUFFIX = '_复制';

const batchBody = z.object({ ids: z.array(z.number().int()).nullish() });
const fetchBody = z.object({ base_url: jsonText, type: jsonInteger, key: jsonText });

/** Go's strconv.ParseBool: anything else is false (new-api ignores the parse error). */
function goBool(text: string): boolean {
  return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text);
}

/** A channel id from the path: not a number is "无效的参数"; a number no row can have is not found. */
function pathId(value: string): number {
  const id = parseGoInt(value);
  if (id === null) throw new InvalidParamsError();
  if (!isRowId(id)) throw new ChannelNotFoundError();
  return id;
}

function context(caller: AuthenticatedUser, request: FastifyRequest): ChannelWriteContext {
  return { correlationId: String(request.id), actor: userActor(caller.id, caller.role), clientIp: request.ip ?? null };
}

/** Channel management, as new-api's /api/channel answers it; every route is for admins. */
@Controller('api/channel')
export class ChannelsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @AdminAuth()
  async list(@Query() query: unknown) {
    const page = Math.min(Math.max(parseGoInt(queryText(query, 'p')) ?? 0, 0), MAX_PAGE);
    // new-api's quirk, kept: page_size missing or 0 is an empty page; negative is the default 10.
    let pageSize = parseGoInt(queryText(query, 'page_size')) ?? 0;
    if (pageSize < 0) pageSize = ITEMS_PER_PAGE;
    pageSize = Math.min(pageSize, MAX_PAGE_SIZE);
    return ok(await this.queryBus.execute(new ListChannelsQuery(page, pageSize, goBool(queryText(query, 'id_sort')))));
  }

  @Get('search')
  @AdminAuth()
  async search(@CurrentUser() caller: AuthenticatedUser, @Query() query: unknown) {
    return ok(
      await this.queryBus.execute(
        new SearchChannelsQuery(
          queryText(query, 'keyword'),
          queryText(query, 'group'),
          queryText(query, 'model'),
          goBool(queryText(query, 'id_sort')),
          caller.role >= ROOT_ROLE,
        ),
      ),
    );
  }

  /** Every built-in model. new-api answers without a `message` key; ours carries an empty one (see ModelsController). */
  @Get('models')
  @AdminAuth()
  models() {
    return ok(allCatalogueModels());
  }

  @Get('fetch_models/:id')
  @AdminAuth()
  async fetchModels(@Param('id') id: string) {
    return ok(await this.queryBus.execute(new FetchUpstreamModelsQuery({ channelId: pathId(id) })));
  }

  /** The creation form's model fetch, with the key typed into the form (no channel exists yet). */
  @Post('fetch_models')
  @HttpCode(200)
  @AdminAuth()
  async fetchModelsFor(@Body() body: unknown) {
    const input = decodeBody(fetchBody, body);
    return ok(
      await this.queryBus.execute(
        new FetchUpstreamModelsQuery({ type: input.type ?? 0, baseUrl: input.base_url ?? '', key: input.key ?? '' }),
      ),
    );
  }

  @Get(':id')
  @AdminAuth()
  async get(@Param('id') id: string) {
    return ok(await this.queryBus.execute(new GetChannelQuery(pathId(id))));
  }

  @Post()
  @HttpCode(200)
  @AdminAuth()
  async create(@CurrentUser() caller: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const { channels, status } = newChannelsFrom(decodeChannelBody(body));
    await this.commandBus.execute(new CreateChannelsCommand({ channels, status, ...context(caller, request) }));
    return ok();
  }

  /** A copy of the channel, key included, named with `suffix` (default "_复制"); answers the new id. */
  @Post('copy/:id')
  @HttpCode(200)
  @AdminAuth()
  async copy(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string, @Query() query: unknown, @Req() request: FastifyRequest) {
    const suffix = queryText(query, 'suffix') || COPY_SUFFIX;
    return ok(await this.commandBus.execute(new CopyChannelCommand({ id: pathId(id), suffix, ...context(caller, request) })));
  }

  @Put()
  @AdminAuth()
  async update(@CurrentUser() caller: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const input = decodeChannelBody(body);
    if (input.id === undefined || input.id === 0) throw new InvalidParamsError();
    if (!isRowId(input.id)) throw new ChannelNotFoundError();
    await this.commandBus.execute(new UpdateChannelCommand({ id: input.id, body: input, ...context(caller, request) }));
    return ok(await this.queryBus.execute(new GetChannelQuery(input.id)));
  }

  @Delete('disabled')
  @AdminAuth()
  async deleteDisabled() {
    return ok(await this.commandBus.execute(new DeleteDisabledChannelsCommand()));
  }

  @Delete(':id')
  @AdminAuth()
  async delete(@Param('id') id: string) {
    const parsed = parseGoInt(id);
    if (parsed === null) throw new InvalidParamsError();
    // An id no row can have deletes nothing, successfully (new-api deletes by id without looking).
    if (isRowId(parsed)) await this.commandBus.execute(new DeleteChannelCommand(parsed));
    return ok();
  }

  @Post('batch')
  @HttpCode(200)
  @AdminAuth()
  async deleteBatch(@Body() body: unknown) {
    const input = decodeBody(batchBody, body);
    const ids = input.ids ?? [];
    if (ids.length === 0) throw new ChannelInputError('batch_selection_required');
    return ok(await this.commandBus.execute(new DeleteChannelsCommand([...new Set(ids.filter((id) => isRowId(id)))])));
  }

  @Post('fix')
  @HttpCode(200)
  @AdminAuth()
  async fix() {
    return ok(await this.commandBus.execute(new FixAbilitiesCommand()));
  }
}
