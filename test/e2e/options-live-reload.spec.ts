import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createHttpApp } from '#server/http-app';
import { OptionsService } from '#server/modules/options/options.service';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';

/** Polls until `check` passes: the other process reloads on a Redis message, a few milliseconds later. */
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Two api processes on one database and one Redis prefix (what a scaled-out install runs): an option saved
 * through one is live on the other without a restart (new-api needed up to SYNC_FREQUENCY = 60 s).
 */
describe('options: live reload across processes', () => {
  let first: TestApp;
  let second: NestFastifyApplication;
  let root: SeededUser;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createHttpApp({ ...first.config, roles: ['api'] }, { logger: false });
    await second.init();
    await second.getHttpAdapter().getInstance().ready();
    root = await seedUser(first.app.get(DataSource), { role: 100 });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  const onSecond = () => request(second.getHttpServer());

  it('shows a PUT made on one process in the other process at once', async () => {
    await first
      .http()
      .put('/api/option/')
      .set('Authorization', root.accessToken)
      .send({ key: 'SystemName', value: 'Shared Gate' })
      .expect(200, {
        success: true,
        message: '',
      });
    await eventually(async () => {
      const status = await onSecond().get('/api/status').expect(200);
      expect(status.body.data.system_name).toBe('Shared Gate');
    });
    expect(second.get(OptionsService).get('SystemName')).toBe('Shared Gate');
  });

  it('works the other way round, for JSON options and the public routes that derive from them', async () => {
    await onSecond()
      .put('/api/option')
      .set('Authorization', root.accessToken)
      .send({ key: 'GroupRatio', value: '{"default":1,"gold":2}' })
      .expect(200, { success: true, message: '' });
    await onSecond()
      .put('/api/option')
      .set('Authorization', root.accessToken)
      .send({ key: 'UserUsableGroups', value: '{"default":"Default","gold":"Gold"}' })
      .expect(200, { success: true, message: '' });
    await eventually(async () => {
      const groups = await first.http().get('/api/user/groups').expect(200);
      expect(groups.body.data).toEqual({ default: 'Default', gold: 'Gold' });
    });
  });

  it('leaves both processes on the previous value when a change is refused', async () => {
    await first.http().put('/api/option/').set('Authorization', root.accessToken).send({ key: 'ModelRatio', value: '{"m":1}' }).expect(200);
    await eventually(async () => expect(second.get(OptionsService).get('ModelRatio')).toBe('{"m":1}'));
    const refused = await onSecond()
      .put('/api/option/')
      .set('Authorization', root.accessToken)
      .send({ key: 'ModelRatio', value: '{"m":' })
      .expect(200);
    expect(refused.body.success).toBe(false);
    // Give a (wrong) reload the chance to happen before checking that nothing moved.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(first.app.get(OptionsService).get('ModelRatio')).toBe('{"m":1}');
    expect(second.get(OptionsService).get('ModelRatio')).toBe('{"m":1}');
  });

  it('ends with the last write on both processes after a burst of saves', async () => {
    for (let i = 1; i <= 10; i++) {
      const target = i % 2 ? first.http() : onSecond();
      await target
        .put('/api/option/')
        .set('Authorization', root.accessToken)
        .send({ key: 'Notice', value: `notice ${i}` })
        .expect(200);
    }
    await eventually(async () => {
      expect((await first.http().get('/api/notice').expect(200)).body.data).toBe('notice 10');
      expect((await onSecond().get('/api/notice').expect(200)).body.data).toBe('notice 10');
    });
  });
});
