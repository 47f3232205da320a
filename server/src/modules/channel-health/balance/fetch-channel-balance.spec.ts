import { BalanceNotSupportedError, fetchChannelBalance, formatDate, type GetJson } from './fetch-channel-balance';

/** Answers by URL path; records every call. */
function fakeGet(routes: Record<string, { status?: number; body: unknown }>) {
  const calls: Array<{ url: string; headers: Record<string, string> }> = [];
  const getJson: GetJson = async (url, headers) => {
    calls.push({ url, headers });
    const path = new URL(url).pathname;
    const route = routes[path];
    if (!route) return { status: 404, body: { error: { message: `no route ${path}` } } };
    return { status: route.status ?? 200, body: route.body };
  };
  return { calls, getJson };
}

const now = new Date(2024, 9, 15, 12, 0, 0);

describe('fetchChannelBalance', () => {
  it('OpenAI with a payment method: hard limit minus this month usage, from the default host', async () => {
    const { calls, getJson } = fakeGet({
      '/v1/dashboard/billing/subscription': { body: { hard_limit_usd: 120, has_payment_method: true } },
      '/v1/dashboard/billing/usage': { body: { total_usage: 2550 } },
    });
    expect(await fetchChannelBalance({ type: 1, key: 'sk-a', baseUrl: '' }, getJson, now)).toBeCloseTo(94.5);
    expect(calls.map((call) => call.url)).toEqual([
      'https://api.openai.com/v1/dashboard/billing/subscription',
      'https://api.openai.com/v1/dashboard/billing/usage?start_date=2024-10-01&end_date=2024-10-15',
    ]);
    expect(calls[0].headers).toEqual({ Authorization: 'Bearer sk-a' });
  });

  it('Custom without a payment method: usage over the last 100 days, at the channel base URL', async () => {
    const { calls, getJson } = fakeGet({
      '/v1/dashboard/billing/subscription': { body: { hard_limit_usd: 5, has_payment_method: false } },
      '/v1/dashboard/billing/usage': { body: { total_usage: 100 } },
    });
    expect(await fetchChannelBalance({ type: 8, key: 'k', baseUrl: 'http://proxy.local/' }, getJson, now)).toBe(4);
    expect(calls[1].url).toBe(
      `http://proxy.local/v1/dashboard/billing/usage?start_date=${formatDate(new Date(2024, 6, 7, 12))}&end_date=2024-10-15`,
    );
  });

  it('AIProxy, API2GPT, AIGC2D and SiliconCloud read their own fields', async () => {
    const { calls, getJson } = fakeGet({
      '/api/report/getUserOverview': { body: { success: true, data: { totalPoints: 12.5 } } },
      '/dashboard/billing/credit_grants': { body: { total_remaining: 3.25, total_available: 7.75 } },
      '/v1/user/info': { body: { code: 20000, data: { balance: '1.00', totalBalance: '9.80' } } },
    });
    expect(await fetchChannelBalance({ type: 10, key: 'ak', baseUrl: null }, getJson, now)).toBe(12.5);
    expect(calls[0]).toEqual({ url: 'https://aiproxy.io/api/report/getUserOverview', headers: { 'Api-Key': 'ak' } });
    expect(await fetchChannelBalance({ type: 12, key: 'k', baseUrl: null }, getJson, now)).toBe(3.25);
    expect(calls[1].url).toBe('https://api.api2gpt.com/dashboard/billing/credit_grants');
    expect(await fetchChannelBalance({ type: 13, key: 'k', baseUrl: null }, getJson, now)).toBe(7.75);
    expect(calls[2].url).toBe('https://api.aigc2d.com/dashboard/billing/credit_grants');
    expect(await fetchChannelBalance({ type: 40, key: 'sf', baseUrl: null }, getJson, now)).toBeCloseTo(9.8);
    expect(calls[3]).toEqual({ url: 'https://api.siliconflow.cn/v1/user/info', headers: { Authorization: 'Bearer sf' } });
  });

  it('answers 尚未实现 for types without a balance endpoint (Azure, Claude, Gemini…)', async () => {
    const { calls, getJson } = fakeGet({});
    for (const type of [3, 14, 24, 4]) {
      await expect(fetchChannelBalance({ type, key: 'k', baseUrl: null }, getJson, now)).rejects.toBeInstanceOf(BalanceNotSupportedError);
    }
    await expect(fetchChannelBalance({ type: 3, key: 'k', baseUrl: null }, getJson, now)).rejects.toThrow('尚未实现');
    expect(calls).toEqual([]);
  });

  it('reports an upstream error with its status and message, and a malformed answer as such', async () => {
    const failing = fakeGet({
      '/v1/dashboard/billing/subscription': { status: 401, body: { error: { message: 'Incorrect API key provided' } } },
    });
    await expect(fetchChannelBalance({ type: 1, key: 'k', baseUrl: null }, failing.getJson, now)).rejects.toThrow(
      'status code: 401, Incorrect API key provided',
    );
    const malformed = fakeGet({ '/dashboard/billing/credit_grants': { body: { total_remaining: 'lots' } } });
    await expect(fetchChannelBalance({ type: 12, key: 'k', baseUrl: null }, malformed.getJson, now)).rejects.toThrow(
      'invalid balance response',
    );
    const refused = fakeGet({ '/api/report/getUserOverview': { body: { success: false, errorCode: 7, message: 'bad key' } } });
    await expect(fetchChannelBalance({ type: 10, key: 'k', baseUrl: null }, refused.getJson, now)).rejects.toThrow(
      'code: 7, message: bad key',
    );
  });
});
