import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { SunoPoller } from '#server/relay/suno/suno-poller';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { SunoApiFake } from '../fakes/upstreams/suno-api-fake';
import { openAdminConsole, type AdminConsole } from './support/admin-console';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, loginThroughUi } from './support/console-actions';
import { waitForTableRows } from './support/page-state';
import { expectChannelFilter, expectUsableOnPhone } from './support/task-lists';

jest.setTimeout(120_000);

interface Row {
  task_id: string;
  status: string;
  progress: string;
  fail_reason: string;
  quota: number;
}

/** The text of each shown row's cells. */
const shownRows = (page: Page): Promise<string[]> => page.locator('tbody tr').allTextContents();

/**
 * The Async tasks page against the real server and a Suno API fake: a user's tasks are submitted through the relay
 * and polled; the page shows them progressing to success and to failure (whose charge comes back: one refund), a
 * task id opens the full JSON; the admin sees every task with the channel column and a channel filter that works;
 * on a phone, in the dark theme too, the table scrolls inside its box. What is shown is compared with /api/task.
 */
describe('console /task', () => {
  const suno = new SunoApiFake();
  let consoleApp: AdminConsole;
  let user: ConsoleBrowser;
  let userApi: ApiSession;
  let channelId = 0;
  let userId = 0;
  let submit: (action: 'music' | 'lyrics', prompt: string) => Promise<string>;
  const username = uniqueName('suno');
  const ids: { done: string; failed: string } = { done: '', failed: '' };

  const poll = async () => {
    const { app } = consoleApp.target;
    await app.app.get(SunoPoller, { strict: false }).run();
    const head = await app.app.get<EventStore>(EVENT_STORE).headPosition();
    await app.app.get(ProjectionWaiter).waitFor(head);
  };
  const quotaOf = async () => {
    const rows: Array<{ quota: string }> = await consoleApp.target.app.app
      .get(DataSource)
      .query('SELECT quota FROM account_balances WHERE user_id = $1', [userId]);
    return Number(rows[0].quota);
  };

  beforeAll(async () => {
    await suno.start();
    consoleApp = await openAdminConsole(async (api) => {
      userId = await api.createUser(username, 'password123');
      const form = await api.must<Record<string, unknown>>('GET', `/api/user/${userId}`);
      await api.must('PUT', '/api/user/', { ...form, password: '', quota: 5_000_000 });
      await api.must('POST', '/api/channel/', {
        type: 36,
        key: suno.key,
        name: 'suno-fake',
        base_url: suno.baseUrl,
        models: 'suno_music,suno_lyrics',
        group: 'default',
      });
    });
    const { target } = consoleApp;
    const rows: Array<{ id: number }> = await target.app.app
      .get(DataSource)
      .query('SELECT id FROM channels WHERE name = $1', ['suno-fake']);
    channelId = rows[0].id;
    userApi = await ApiSession.login(target.baseUrl, username, 'password123');
    await userApi.must('POST', '/api/token/', { name: 'suno', remain_quota: 0, expired_time: -1, unlimited_quota: true, group: '' });
    const tokens = await userApi.must<{ items?: Array<{ key: string }> } | Array<{ key: string }>>('GET', '/api/token/?p=0&size=1');
    const key = `sk-${(Array.isArray(tokens) ? tokens : tokens.items!)[0].key}`;
    submit = async (action, prompt) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const answer = await fetch(`${target.baseUrl}/suno/submit/${action}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt }),
        });
        const body = (await answer.json()) as { code?: string; data?: string };
        if (body.code === 'success') return body.data!;
        if (Date.now() > deadline) throw new Error(`submit refused: ${JSON.stringify(body)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(user.page, username, 'password123');
  });

  afterAll(async () => {
    await user?.close();
    await consoleApp?.close();
    await suno.close();
  });

  it('shows a user their tasks progressing to success and to failure with a refund, and the full JSON of a task', async () => {
    const { page } = user;
    const start = await quotaOf();
    ids.done = await submit('music', 'a song about foxes');
    ids.failed = await submit('lyrics', 'forbidden words');
    await poll();
    expect(await quotaOf()).toBe(start - 50_000 - 5_000);

    await page.goto('/task');
    await waitForTableRows(page, 2);
    let rows = await shownRows(page);
    expect(rows[0]).toContain(ids.failed);
    expect(rows[0]).toContain('生成歌词');
    expect(rows[1]).toContain(ids.done);
    // The poll copied the upstream's SUBMITTED (queued).
    expect(rows[1]).toContain('队列中');
    expect(rows[1]).toContain('0%');
    // No channel column for a user.
    await expect(page.getByText('渠道 ID').count()).resolves.toBe(0);

    suno.inProgress(ids.done);
    suno.fail(ids.failed, 'lyrics refused upstream');
    await poll();
    await page.reload();
    await waitForTableRows(page, 2);
    await expectText(page, '执行中');
    rows = await shownRows(page);
    expect(rows[0]).toContain('失败');
    expect(rows[0]).toContain('lyrics refused upstream');
    expect(rows[0]).toContain('100%');

    suno.succeed(ids.done);
    await poll();
    await page.reload();
    await waitForTableRows(page, 2);
    rows = await shownRows(page);
    expect(rows[1]).toContain('成功');
    expect(rows[1]).toContain('100%');
    expect(await quotaOf()).toBe(start - 50_000);

    // The task id opens the whole task as JSON.
    await page.getByTestId('task-id').filter({ hasText: ids.done }).click();
    const json = JSON.parse(await page.getByTestId('task-json').innerText()) as Row & { data: unknown };
    expect(json).toMatchObject({ task_id: ids.done, status: 'SUCCESS', progress: '100%', action: 'MUSIC' });
    expect(json.data).toEqual(suno.tasks.get(ids.done)!.data);
    await page.getByRole('button', { name: '关闭' }).click();

    await page.getByLabel('任务 ID').fill(ids.failed);
    await waitForTableRows(page, 1);
    expect((await shownRows(page))[0]).toContain(ids.failed);

    const server = await userApi.must<Row[]>('GET', '/api/task/self');
    expect(server.map((row) => row.task_id)).toEqual([ids.failed, ids.done]);
    expect(server[0]).toMatchObject({ status: 'FAILURE', fail_reason: 'lyrics refused upstream', progress: '100%' });
    const refunds: Array<{ n: string }> = await consoleApp.target.app.app
      .get(DataSource)
      .query(`SELECT count(*) AS n FROM events WHERE type = 'QuotaRefunded' AND data->>'upstreamTaskId' = $1`, [ids.failed]);
    expect(Number(refunds[0].n)).toBe(1);
  });

  it('shows the admin every task with its channel, and a channel filter that works', async () => {
    const { page } = consoleApp.admin;
    await page.goto('/task');
    await waitForTableRows(page, 2);
    await expectText(page, '渠道');
    await expectChannelFilter(page, channelId, 2);
    const server = await consoleApp.api.must<Row[]>('GET', `/api/task/?channel_id=${channelId}`);
    expect(server).toHaveLength(2);
  });

  it('stays usable at 375 px in English, in the dark theme too: the table scrolls inside its box', async () => {
    await expectUsableOnPhone({ baseUrl: consoleApp.target.baseUrl, username, password: 'password123', path: '/task', rows: 2 });
  });
});
