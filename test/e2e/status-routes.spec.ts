import { ModulesContainer } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { EVENT_STORE } from '#server/ledger/event-store.port';

/** GET /api/status, the content pages, GET /api/status/test, GET /api/status/projections and GET /metrics. */
describe('status routes', () => {
  let target: TestApp;
  let root: SeededUser;
  let admin: SeededUser;
  let common: SeededUser;
  const bootedBefore = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    target = await createTestApp({ env: { VERSION: 'v0.3.0.0-test', METRICS_PUBLIC: 'true' } });
    const dataSource = target.app.get(DataSource);
    root = await seedUser(dataSource, { role: 100 });
    admin = await seedUser(dataSource, { role: 10 });
    common = await seedUser(dataSource, { role: 1 });
  });
  afterAll(async () => {
    await target.close();
  });

  const setOption = (key: string, value: string) =>
    target
      .http()
      .put('/api/option/')
      .set('Authorization', root.accessToken)
      .send({ key, value })
      .expect(200, { success: true, message: '' });

  describe('GET /api/status (public)', () => {
    it('answers every key new-api answers with its default, without a session', async () => {
      const response = await target.http().get('/api/status').expect(200);
      expect(response.body.success).toBe(true);
      expect(response.body.message).toBe('');
      const { start_time: startTime, ...rest } = response.body.data;
      expect(startTime).toBeGreaterThanOrEqual(bootedBefore);
      expect(startTime).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(rest).toEqual({
        version: 'v0.3.0.0-test',
        email_verification: false,
        github_oauth: false,
        github_client_id: '',
        telegram_oauth: false,
        telegram_bot_name: '',
        system_name: 'New API',
        logo: '',
        footer_html: '',
        wechat_qrcode: '',
        wechat_login: false,
        server_address: 'http://localhost:3000',
        price: 7.3,
        min_topup: 1,
        turnstile_check: false,
        turnstile_site_key: '',
        top_up_link: '',
        chat_link: '',
        chat_link2: '',
        quota_per_unit: 500000,
        display_in_currency: true,
        enable_batch_update: false,
        enable_drawing: true,
        enable_task: true,
        enable_data_export: true,
        data_export_default_time: 'hour',
        default_collapse_sidebar: false,
        enable_online_topup: false,
        mj_notify_enabled: false,
      });
    });

    it('keeps start_time fixed between calls (boot time, not request time)', async () => {
      const first = (await target.http().get('/api/status').expect(200)).body.data.start_time;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await target.http().get('/api/status/').expect(200)).body.data.start_time).toBe(first);
    });

    it('follows option changes at once', async () => {
      await setOption('QuotaPerUnit', '1000');
      await setOption('DisplayInCurrencyEnabled', 'false');
      await setOption('TurnstileSiteKey', 'site-key-1');
      await setOption('TurnstileCheckEnabled', 'true');
      await setOption('ChatLink', 'https://chat.example.com');
      const data = (await target.http().get('/api/status').expect(200)).body.data;
      expect(data).toMatchObject({
        quota_per_unit: 1000,
        display_in_currency: false,
        turnstile_check: true,
        turnstile_site_key: 'site-key-1',
        chat_link: 'https://chat.example.com',
      });
      await setOption('TurnstileCheckEnabled', 'false');
    });

    it('offers online top-up once PayAddress, EpayId and EpayKey are all set, without leaking the key', async () => {
      await setOption('PayAddress', 'https://pay.example.com/');
      await setOption('EpayId', '1001');
      expect((await target.http().get('/api/status').expect(200)).body.data.enable_online_topup).toBe(false);
      await setOption('EpayKey', 'epay-secret-key');
      const response = await target.http().get('/api/status').expect(200);
      expect(response.body.data.enable_online_topup).toBe(true);
      expect(JSON.stringify(response.body)).not.toContain('epay-secret-key');
    });
  });

  describe('content pages (public)', () => {
    it.each([
      ['/api/notice', 'Notice'],
      ['/api/about', 'About'],
      ['/api/home_page_content', 'HomePageContent'],
    ])('%s answers the %s option as data', async (path, key) => {
      expect((await target.http().get(path).expect(200)).body).toEqual({ success: true, message: '', data: '' });
      await setOption(key, `# ${key}\n<p>hello</p>`);
      expect((await target.http().get(`${path}/`).expect(200)).body).toEqual({
        success: true,
        message: '',
        data: `# ${key}\n<p>hello</p>`,
      });
    });
  });

  describe('GET /api/status/test (admin)', () => {
    it('answers "Server is running" to admins and root', async () => {
      for (const user of [admin, root]) {
        const response = await target.http().get('/api/status/test').set('Authorization', user.accessToken).expect(200);
        expect(response.body).toEqual({ success: true, message: 'Server is running' });
      }
    });

    it('refuses common users (HTTP 200) and anonymous callers (HTTP 401)', async () => {
      const refused = await target.http().get('/api/status/test').set('Authorization', common.accessToken).expect(200);
      expect(refused.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
      const anonymous = await target.http().get('/api/status/test').expect(401);
      expect(anonymous.body).toEqual({ success: false, message: '无权进行此操作，未登录且未提供 access token' });
    });
  });

  describe('GET /api/status/projections (admin)', () => {
    it('refuses common users and anonymous callers', async () => {
      expect((await target.http().get('/api/status/projections').set('Authorization', common.accessToken).expect(200)).body).toEqual({
        success: false,
        message: '无权进行此操作，权限不足',
      });
      await target.http().get('/api/status/projections').expect(401);
    });

    it('reports each projection with its checkpoint, the head position and the lag', async () => {
      const ledgerWired = [...target.app.get(ModulesContainer).values()].some((module) => module.providers.has(EVENT_STORE));
      const response = await target.http().get('/api/status/projections').set('Authorization', admin.accessToken).expect(200);
      if (!ledgerWired) {
        // Until LedgerModule is imported by AppModule there is no event store to compare against.
        expect(response.body).toEqual({ success: false, message: '账本未启用，无法读取投影进度' });
        return;
      }
      expect(response.body.success).toBe(true);
      expect(typeof response.body.data.head_position).toBe('number');
      for (const projection of response.body.data.projections) {
        expect(projection).toMatchObject({ head_position: response.body.data.head_position });
        expect(projection.lag).toBe(Math.max(0, projection.head_position - projection.checkpoint));
      }
    });
  });

  describe('GET /metrics', () => {
    it('serves the Prometheus text format with process and per-route HTTP metrics', async () => {
      await target.http().get('/api/status').expect(200);
      const response = await target.http().get('/metrics').expect(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(response.text).toContain('# TYPE process_cpu_user_seconds_total counter');
      expect(response.text).toMatch(/tollgate_http_requests_total\{method="GET",route="\/api\/status",status_code="200"\} \d+/);
      expect(response.text).toContain('tollgate_http_request_duration_seconds_bucket');
      // Raw URLs never become labels: unknown paths share one series.
      await target.http().get('/api/no-such-route-12345').expect(404);
      expect((await target.http().get('/metrics').expect(200)).text).not.toContain('no-such-route-12345');
    });
  });
});

describe('GET /metrics access', () => {
  const scrape = async (env: Record<string, string>, authorizations: Array<string | undefined>) => {
    const target = await createTestApp({ env });
    try {
      const answers: Array<{ status: number; text: string }> = [];
      for (const authorization of authorizations) {
        const call = target.http().get('/metrics');
        const response = authorization === undefined ? await call : await call.set('Authorization', authorization);
        answers.push({ status: response.status, text: response.text });
      }
      return answers;
    } finally {
      await target.close();
    }
  };

  it('is closed by default: 404 with or without credentials', async () => {
    const answers = await scrape({}, [undefined, 'Bearer anything']);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404]);
    for (const answer of answers) expect(answer.text).not.toContain('process_cpu_user_seconds_total');
  });

  it('with METRICS_TOKEN, requires the bearer token (401 without it or with a wrong one)', async () => {
    const answers = await scrape({ METRICS_TOKEN: 'scrape-token' }, [undefined, 'Bearer wrong', 'scrape-token', 'Bearer scrape-token']);
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 200]);
    expect(answers[3].text).toContain('process_cpu_user_seconds_total');
  });

  it('with METRICS_PUBLIC=true, is open to anyone; a METRICS_TOKEN set as well still wins', async () => {
    const open = await scrape({ METRICS_PUBLIC: 'true' }, [undefined]);
    expect(open[0].status).toBe(200);
    expect(open[0].text).toContain('process_cpu_user_seconds_total');
    const both = await scrape({ METRICS_PUBLIC: 'true', METRICS_TOKEN: 'scrape-token' }, [undefined, 'Bearer scrape-token']);
    expect(both.map((answer) => answer.status)).toEqual([401, 200]);
  });
});
