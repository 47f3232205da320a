import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, loginThroughUi } from './support/console-actions';
import { horizontalOverflow, watchPageFaults } from './support/page-watch';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(90_000);

type Page = ConsoleBrowser['page'];

const SYSTEM_DEFAULT = 'You are a helpful assistant. You can help me by answering my questions. You can also ask me questions.';

const messages = (page: Page) => page.getByTestId('playground-message');
const lastReply = (page: Page) => page.locator('[data-testid="playground-message"][data-role="assistant"]').last();

/** Waits until the last reply reaches `status` (loading, incomplete, complete or error). */
const replyReaches = async (page: Page, status: string) => {
  await page.locator(`[data-testid="playground-message"][data-role="assistant"][data-status="${status}"]`).last().waitFor();
};

const send = async (page: Page, text: string, labels = { input: '消息', send: '发送' }) => {
  await page.getByLabel(labels.input, { exact: true }).fill(text);
  await page.getByRole('button', { name: labels.send }).click();
};

/** Polls the caller's own account until `check` holds (the request count is a projection). */
const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('console playground', () => {
  let target: ConsoleTarget;
  let root: ApiSession;
  let user: ApiSession;
  let browser: ConsoleBrowser | undefined;
  const fake = new OpenAIUpstreamFake();
  const username = uniqueName('pg');

  const self = () => user.must<{ quota: number; used_quota: number; request_count: number }>('GET', '/api/user/self');

  beforeAll(async () => {
    await fake.start();
    target = await startConsoleTarget();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await root.createUser(username, 'password123');
    user = await ApiSession.login(target.baseUrl, username, 'password123');
    const [code] = await root.must<string[]>('POST', '/api/redemption/', { name: 'playground', quota: 50_000_000, count: 1 });
    await user.must('POST', '/api/user/topup', { key: code });
    await root.must('POST', '/api/channel/', {
      type: 1,
      name: 'fake-openai',
      key: 'sk-upstream',
      base_url: fake.baseUrl,
      models: 'gpt-4o-mini,fake-small',
      group: 'default',
      model_mapping: '',
      auto_ban: 0,
    });
    const models = await eventually(
      () => user.must<string[]>('GET', '/api/user/models'),
      (list) => list.includes('fake-small'),
    );
    expect(models).toEqual(expect.arrayContaining(['gpt-4o-mini', 'fake-small']));
  });
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });
  afterAll(async () => {
    await target?.stop();
    await fake.close();
  });

  it('streams replies from the upstream with the chosen group, model, max tokens and system prompt, and charges the user', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await loginThroughUi(page, username, 'password123');
    await page.goto('/playground');
    await expectText(page, '暂无消息，选择模型后开始对话吧');
    await expectText(page.getByLabel('分组'), '默认分组');
    expect(await page.getByLabel('模型').inputValue()).toBe('gpt-4o-mini');
    expect(await page.getByLabel('System').inputValue()).toBe(SYSTEM_DEFAULT);
    const before = await self();

    fake.streamPieces = 5;
    const sentBefore = fake.requests.length;
    await send(page, 'Hello there');
    await replyReaches(page, 'complete');
    expect(await lastReply(page).innerText()).toContain(fake.reply);
    expect(fake.requests.length).toBe(sentBefore + 1);
    expect(fake.bodies()[sentBefore]).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [
        { role: 'system', content: SYSTEM_DEFAULT },
        { role: 'user', content: 'Hello there' },
      ],
    });
    expect(fake.bodies()[sentBefore]).not.toHaveProperty('max_tokens'); // 0 means no bound
    const after = await eventually(self, (account) => account.request_count === before.request_count + 1);
    expect(after.request_count).toBe(before.request_count + 1);
    expect(after.used_quota).toBeGreaterThan(before.used_quota);

    // Another model, a max-tokens value and a shorter system prompt; the conversation so far goes along.
    await page.getByLabel('模型').click();
    await page.getByRole('option', { name: 'fake-small' }).click();
    await page.getByLabel('MaxTokens').fill('64');
    await page.getByLabel('System').fill('Answer briefly.');
    await send(page, 'Second question');
    await replyReaches(page, 'complete');
    expect(await messages(page).count()).toBe(4);
    expect(fake.bodies()[sentBefore + 1]).toMatchObject({
      model: 'fake-small',
      max_tokens: 64,
      stream: true,
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: fake.reply },
        { role: 'user', content: 'Second question' },
      ],
    });
    expect(faults()).toEqual([]);
  });

  it('stops a reply mid-stream, clears the context, and shows the expired-login message', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { context, page } = browser;
    const faults = watchPageFaults(page);
    await loginThroughUi(page, username, 'password123');
    await page.goto('/playground');
    await expectText(page.getByLabel('分组'), '默认分组');

    fake.reply = 'Once upon a time there was a gateway that counted every token it relayed, one by one, all day long.';
    fake.streamPieces = 40;
    fake.chunkDelayMs = 150;
    try {
      await send(page, 'Tell me a story');
      await replyReaches(page, 'incomplete');
      await page.getByRole('button', { name: '停止' }).click();
      await replyReaches(page, 'complete');
      await expectText(lastReply(page), '助手 · 已停止');
      const kept = await lastReply(page).innerText();
      await page.waitForTimeout(600);
      expect(await lastReply(page).innerText()).toBe(kept);
      expect(kept.length).toBeLessThan(fake.reply.length);
      expect(await page.getByRole('button', { name: '停止' }).count()).toBe(0);
    } finally {
      fake.chunkDelayMs = 0;
      fake.reply = 'Hello from the fake upstream.';
    }

    await page.getByRole('button', { name: '清除上下文' }).click();
    await expectText(page, '暂无消息，选择模型后开始对话吧');
    expect(await messages(page).count()).toBe(0);
    const sentBefore = fake.requests.length;
    await send(page, 'Fresh start');
    await replyReaches(page, 'complete');
    expect((fake.bodies()[sentBefore].messages as unknown[]).length).toBe(2); // the system prompt and this question only

    // An upstream refusal: the reply shows the server's words and is marked as an error.
    fake.next({
      status: 400,
      body: { error: { message: 'This model rejects the prompt', type: 'invalid_request_error', code: 'bad_prompt' } },
    });
    await send(page, 'Something odd');
    await replyReaches(page, 'error');
    await expectText(lastReply(page), 'This model rejects the prompt');

    // The session is gone: the playground says so in the reply and in a toast.
    await context.clearCookies();
    await send(page, 'Are you still there?');
    await replyReaches(page, 'error');
    await expectText(lastReply(page), '未登录或登录已过期，请重新登录');
    expect(fake.requests.length).toBe(sentBefore + 2);
    expect(faults()).toEqual([]);
  });

  it('works at 375 px in English and dark mode', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 800 } });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await loginThroughUi(page, username, 'password123', 'en');
    await page.goto('/playground');
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await expectText(page.getByLabel('Group'), '默认分组');
    await expectText(page, 'No messages yet. Pick a model and say hello.');
    await send(page, 'Hi from a phone', { input: 'Message', send: 'Send' });
    await replyReaches(page, 'complete');
    expect(await lastReply(page).innerText()).toContain('Hello from the fake upstream.');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(faults()).toEqual([]);
  });
});
