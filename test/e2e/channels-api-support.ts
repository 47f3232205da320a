import { CommandBus } from '@nestjs/cqrs';
import { SecretBox } from '#server/common/crypto/secret-box';
import { systemActor } from '#server/ledger/event-envelope';
import { openChannelKey } from '#server/modules/channels/channel-keys';
import { ChannelRouter } from '#server/modules/channels/routing/channel-router';
import { ChangeChannelStatusCommand } from '#server/modules/channels/usecases/change-channel-status/change-channel-status.command';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, rootCaller, seedCaller } from './users-support';

/** The keys of channels `ids` as stored, opened (they are encrypted at rest: secrets-at-rest.spec.ts), in id order. */
export async function storedChannelKeys(target: TestApp, ids: number[]): Promise<string[]> {
  const rows: Array<{ key: string }> = await dataSource(target).query('SELECT key FROM channels WHERE id = ANY($1::int[]) ORDER BY id', [
    ids,
  ]);
  return rows.map((row) => openChannelKey(target.app.get(SecretBox), row.key));
}

/** What the channels-API specs share once their app is up (filled in by the fixture's beforeAll). */
export interface ChannelsApiContext {
  target: TestApp;
  root: Caller;
  /** An admin (role 10), `chadmin`. */
  admin: Caller;
  /** An ordinary user (role 1), `chuser`. */
  common: Caller;
}

/** The console's channel form with new-api's fields. */
export const channelForm = (overrides: Record<string, unknown> = {}) => ({
  type: 1,
  name: 'main',
  key: 'sk-upstream-1',
  models: 'gpt-4o,gpt-4o-mini',
  group: 'default',
  base_url: '',
  other: '',
  model_mapping: '',
  auto_ban: 1,
  groups: ['default'],
  ...overrides,
});

/**
 * Registers the channels-API app for the enclosing describe (root, an admin and an ordinary user) and returns the
 * context and the helpers bound to it. Call it first in the describe, so its beforeAll runs before the spec's own.
 */
export function channelsApiFixture() {
  const context = {} as ChannelsApiContext;

  beforeAll(async () => {
    context.target = await createTestApp();
    context.root = await rootCaller(context.target);
    context.admin = await seedCaller(context.target, { role: 10, username: 'chadmin' });
    context.common = await seedCaller(context.target, { role: 1, username: 'chuser' });
  });
  afterAll(async () => {
    await context.target?.close();
  });

  /** Creates channels through the API and answers their ids (newest last). */
  async function create(overrides: Record<string, unknown> = {}): Promise<number[]> {
    const before = await maxId();
    const response = await call(context.target, context.admin, 'post', '/api/channel/', channelForm(overrides));
    expect(response.body).toEqual({ success: true, message: '' });
    const rows: Array<{ id: number }> = await dataSource(context.target).query('SELECT id FROM channels WHERE id > $1 ORDER BY id', [
      before,
    ]);
    return rows.map((row) => row.id);
  }

  async function maxId(): Promise<number> {
    const rows: Array<{ max: number | null }> = await dataSource(context.target).query('SELECT max(id)::int AS max FROM channels');
    return rows[0].max ?? 0;
  }

  const router = () => context.target.app.get(ChannelRouter);
  const getChannel = async (id: number) => (await call(context.target, context.admin, 'get', `/api/channel/${id}`)).body.data;
  /** What the health rules do to a channel whose key was revoked (a 401), with its reason. */
  const autoDisable = (channelId: number) =>
    context.target.app.get(CommandBus).execute(
      new ChangeChannelStatusCommand({
        channelId,
        command: {
          type: 'AutoDisableChannel',
          reasonCode: 'upstream_unauthorized',
          message: 'Incorrect API key',
          evidence: { status: 401 },
        },
        reasonCode: 'upstream_unauthorized',
        correlationId: 'test',
        actor: systemActor(),
        clientIp: null,
      }),
    );
  const abilities = (id: number) =>
    dataSource(context.target).query(
      'SELECT "group", model, enabled, priority::int AS priority, weight FROM abilities WHERE channel_id = $1 ORDER BY 1, 2',
      [id],
    );

  return { context, create, router, getChannel, autoDisable, abilities };
}
