import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { MidjourneyPoller } from '#server/relay/midjourney/midjourney-poller';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { fakeImage, MidjourneyProxyFake } from '../fakes/upstreams/midjourney-proxy-fake';
import { openAdminConsole, type AdminConsole } from './support/admin-console';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, loginThroughUi, statValue } from './support/console-actions';
import { waitForTableRows } from './support/page-state';
import { expectChannelFilter, expectUsableOnPhone } from './support/task-lists';

jest.setTimeout(120_000);

interface Row {
  mj_id: string;
  status: string;
  fail_reason: string;
  image_url: string;
}

/** The text of each shown row's cells. */
const shownRows = (page: Page): Promise<string[]> => page.locator('tbody tr').allTextContents();

/**
 * The Drawing page against the real server and a Midjourney-Proxy fake: a user's imagines are submitted through the
 * relay and polled; the user sees their own tasks (status through progress, image, failure reason), filters by task
 * id; the admin sees everyone's with the channel and status columns, the callback-off banner, and a channel filter
 * that works; on a phone the table scrolls inside its box. What is shown is compared with what /api/mj holds.
 */
describe('console /midjourney', () => {
  const proxy = new MidjourneyProxyFake();
  let consoleApp: AdminConsole;
  let user: ConsoleBrowser;
  let userApi: ApiSession;
  let channelId = 0;
  const username = uniqueName('mj');
  const ids: { done: string; failed: string } = { done: '', failed: '' };
  /** An imagine submitted through the relay with the user's token; its Midjourney task id. */
  let submit: (prompt: string) => Promise<string>;

  const poll = async () => {
    const { app } = consoleApp.target;
    await app.app.get(MidjourneyPoller, { strict: false }).run();
    const head = await app.app.get<EventStore>(EVENT_STORE).headPosition();
    await app.app.get(ProjectionWaiter).waitFor(head);
  };

  beforeAll(async () => {
    await proxy.start();
    consoleApp = await openAdminConsole(async (api) => {
      const userId = await api.createUser(username, 'password123');
      const form = await api.must<Record<string, unknown>>('GET', `/api/user/${userId}`);
      await api.must('PUT', '/api/user/', { ...form, password: '', quota: 5_000_000 });
      await api.must('POST', '/api/channel/', {
        type: 2,
        key: proxy.secret,
        name: 'mj-fake',
        base_url: proxy.baseUrl,
        models: 'mj_imagine',
        group: 'default',
      });
    });
    const { api, target } = consoleApp;
    await api.setOption('ServerAddress', target.baseUrl);
    const rows: Array<{ id: number }> = await target.app.app.get(DataSource).query('SELECT id FROM channels WHERE name = $1', ['mj-fake']);
    channelId = rows[0].id;
    userApi = await ApiSession.login(target.baseUrl, username, 'password123');
    await userApi.must('POST', '/api/token/', { name: 'mj', remain_quota: 0, expired_time: -1, unlimited_quota: true, group: '' });
    const tokens = await userApi.must<{ items?: Array<{ key: string }> } | Array<{ key: string }>>('GET', '/api/token/?p=0&size=1');
    const key = `sk-${(Array.isArray(tokens) ? tokens : tokens.items!)[0].key}`;
    submit = async (prompt: string): Promise<string> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const answer = await fetch(`${target.baseUrl}/mj/submit/imagine`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt }),
        });
        const body = (await answer.json()) as { code?: number; result?: string };
        if (body.code === 1) return body.result!;
        if (Date.now() > deadline) throw new Error(`submit refused: ${JSON.stringify(body)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    ids.done = await submit('a red fox in the snow');
    ids.failed = await submit('a forbidden picture');
    proxy.succeed(ids.done);
    proxy.fail(ids.failed, 'banned prompt detected');
    await poll();
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(user.page, username, 'password123');
  });

  afterAll(async () => {
    await user?.close();
    await consoleApp?.close();
    await proxy.close();
  });

  it('shows a user their own tasks with status, image and failure reason, and filters them by task id', async () => {
    const { page } = user;
    await page.goto('/midjourney');
    await waitForTableRows(page, 2);
    const rows = await shownRows(page);
    expect(rows[0]).toContain(ids.failed);
    expect(rows[0]).toContain('banned prompt detected');
    expect(rows[1]).toContain(ids.done);
    expect(rows[1]).toContain('100%');
    // No admin columns, no banner.
    await expect(page.getByText('提交结果').count()).resolves.toBe(0);
    await expect(page.getByTestId('mj-notify-banner').count()).resolves.toBe(0);
    // The image opens through this server's /mj/image/:id, which serves the upstream's bytes.
    const href = await page.getByTestId('mj-image').first().getAttribute('href');
    expect(href).toBe(`${consoleApp.target.baseUrl}/mj/image/${ids.done}`);
    const image = await fetch(href!);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(fakeImage(ids.done));

    await page.getByLabel('任务 ID').fill(ids.done);
    await waitForTableRows(page, 1);
    expect((await shownRows(page))[0]).toContain(ids.done);

    const server = await userApi.must<Row[]>('GET', '/api/mj/self');
    expect(server.map((row) => row.mj_id)).toEqual([ids.failed, ids.done]);
    expect(server[0]).toMatchObject({ status: 'FAILURE', fail_reason: 'banned prompt detected' });
  });

  it('shows the admin every task with channel and status, the callback banner, and a working channel filter', async () => {
    const { page } = consoleApp.admin;
    await page.goto('/midjourney');
    await expectText(page, '当前未开启 Midjourney 回调');
    await waitForTableRows(page, 2);
    await expectText(page, '任务状态');
    const rows = await shownRows(page);
    expect(rows[0]).toContain('失败');
    expect(rows[1]).toContain('成功');
    await expectChannelFilter(page, channelId, 2);
    const server = await consoleApp.api.must<Row[]>('GET', `/api/mj/?channel_id=${channelId}`);
    expect(server).toHaveLength(2);
  });

  it('stays usable at 375 px in English, in the dark theme too: the table scrolls inside its box', async () => {
    await expectUsableOnPhone({ baseUrl: consoleApp.target.baseUrl, username, password: 'password123', path: '/midjourney', rows: 2 });
  });

  it('opens the image viewer from a task’s image: the whole image in a dialog, decoded, the original a link away', async () => {
    const { page } = user;
    await page.goto('/midjourney');
    await waitForTableRows(page, 2);
    const href = `${consoleApp.target.baseUrl}/mj/image/${ids.done}`;
    await page.getByTestId('mj-image').first().click();
    const viewer = page.getByRole('dialog');
    await viewer.waitFor();
    await expectText(viewer, `任务 ${ids.done} 的图片`);
    const image = viewer.getByRole('img', { name: `任务 ${ids.done} 的结果` });
    expect(await image.getAttribute('src')).toBe(href);
    // Shown: the browser fetched and decoded the 8×8 PNG the upstream holds (through this server's /mj/image/:id).
    await page.waitForFunction((alt) => {
      const shown = (globalThis as any).document.querySelector(`[role="dialog"] img[alt="${alt}"]`);
      return shown !== null && shown.complete && shown.naturalWidth === 8;
    }, `任务 ${ids.done} 的结果`);
    expect((await image.boundingBox())!.width).toBeGreaterThan(0);
    expect(await viewer.getByRole('link', { name: '打开原图' }).getAttribute('href')).toBe(href);
    expect(page.context().pages()).toHaveLength(1); // the viewer, not a new tab
    await viewer.getByRole('button', { name: '关闭' }).click();
    await viewer.waitFor({ state: 'hidden' });
  });

  it('watches a task go from running to failure in the list, with its charge given back to the balance', async () => {
    const { page } = user;
    /** The balance the personal page shows once it loaded (quota at 500 000 a dollar, two decimals). */
    const expectBalance = async (quota: number) => {
      await page.goto('/setting?tab=personal');
      await expectText(statValue(page, '当前余额'), new RegExp(`^\\$${(quota / 500_000).toFixed(2).replace('.', '\\.')}$`));
    };
    const before = (await userApi.must<{ quota: number }>('GET', '/api/user/self')).quota;
    await expectBalance(before);
    const mjId = await submit('a picture that will fail');
    proxy.progress(mjId, '40%');
    await poll();

    await page.goto('/midjourney');
    await waitForTableRows(page, 3);
    let rows = await shownRows(page);
    expect(rows[0]).toContain(mjId);
    expect(rows[0]).toContain('40%');
    expect(rows[0]).not.toContain('upstream rejected the job');
    // Charged once at submit: $0.10 (mj_imagine's 0.1 at group ratio 1, 50 000 quota) less than before.
    await expectBalance(before - 50_000);

    proxy.fail(mjId, 'upstream rejected the job');
    await poll();
    await page.goto('/midjourney');
    await waitForTableRows(page, 3);
    rows = await shownRows(page);
    expect(rows[0]).toContain(mjId);
    expect(rows[0]).toContain('upstream rejected the job');
    expect(rows[0]).toContain('100%');
    // Refunded exactly once: the balance is back where it was.
    await expectBalance(before);
    expect((await userApi.must<{ quota: number }>('GET', '/api/user/self')).quota).toBe(before);
    const server = await userApi.must<Row[]>('GET', '/api/mj/self');
    expect(server[0]).toMatchObject({ mj_id: mjId, status: 'FAILURE', fail_reason: 'upstream rejected the job' });
  });
});
