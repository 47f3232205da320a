import { OpenAIUpstreamFake } from '../../fakes/upstreams/openai-upstream-fake';
import { ApiSession } from './api-client';
import type { ConsoleTarget } from './target';

/** A log row as the admin list answers it. */
export interface LogRowJson {
  id: number;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  channel: number;
  other: string;
}

export interface LogPage {
  items: LogRowJson[];
  total: number;
}

/** What the log screen spec's set-up made through real actions. */
export interface SeededLogs {
  user: { id: number; username: string; password: string; tokenName: string; session: ApiSession };
  rootTokenName: string;
  /** Channel A answers every request with a 500 (so a request is retried on B); B answers. */
  channels: { failing: number; working: number };
  /** Rows created strictly before this second: the first batch (quota change, redemption, one relay call). */
  cutoff: number;
  upstreams: OpenAIUpstreamFake[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `/api/log/` (admin) with a query string; every row of this spec fits in one page. */
export const adminLogs = (api: ApiSession, query = ''): Promise<LogPage> =>
  api.must<LogPage>('GET', `/api/log/?p=1&page_size=100${query ? `&${query}` : ''}`);

async function createChannel(api: ApiSession, name: string, baseUrl: string, models: string[], priority: number): Promise<number> {
  await api.must('POST', '/api/channel/', {
    type: 1,
    key: 'upstream-key',
    name,
    base_url: baseUrl,
    models: models.join(','),
    group: 'default',
    priority,
    weight: 0,
    model_mapping: '',
    other: '',
    status_code_mapping: '',
    auto_ban: 0,
  });
  const found = await api.must<Array<{ id: number; name: string }>>('GET', `/api/channel/search?keyword=${encodeURIComponent(name)}`);
  const channel = found.find((candidate) => candidate.name === name);
  if (!channel) throw new Error(`channel ${name} not found after creation`);
  return channel.id;
}

/** Creates a token for the session's user and returns its sk- key. */
async function createToken(session: ApiSession, name: string): Promise<string> {
  await session.must('POST', '/api/token/', { name, remain_quota: 0, expired_time: -1, unlimited_quota: true });
  const found = await session.must<Array<{ name: string; key: string }>>('GET', `/api/token/search?keyword=${encodeURIComponent(name)}`);
  const token = found.find((candidate) => candidate.name === name);
  if (!token) throw new Error(`token ${name} not found after creation`);
  return `sk-${token.key}`;
}

async function relay(baseUrl: string, key: string, model: string, stream: boolean): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'hello' }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`relay ${model} answered ${response.status}: ${text}`);
}

async function routable(baseUrl: string, key: string, model: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { data?: Array<{ id: string }> };
    if (body.data?.some((entry) => entry.id === model)) return;
    if (Date.now() > deadline) throw new Error(`model ${model} never became routable`);
    await sleep(50);
  }
}

/** Waits until the admin list holds `count` rows of `type` (the log rows are a projection). */
export async function untilLogRows(api: ApiSession, type: number, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await adminLogs(api, `type=${type}`);
    if (page.total >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${page.total} log rows of type ${type}, expected ${count}`);
    await sleep(100);
  }
}

/**
 * Real actions only: two channels on fake OpenAI upstreams (A failing, B answering, one retry allowed), a common
 * user whose quota the admin sets (type 3) and who redeems a code (type 1), relay calls by the user and by root
 * (type 2; gpt-4o-mini goes A then B, gpt-3.5-turbo only B). The first batch is created before `cutoff`, the rest
 * from that second on.
 */
export async function seedLogs(target: ConsoleTarget, root: ApiSession, username: string): Promise<SeededLogs> {
  const failing = new OpenAIUpstreamFake();
  failing.authorize = () => ({ status: 500, body: { error: { message: 'upstream is down', type: 'server_error', code: null } } });
  const working = new OpenAIUpstreamFake();
  working.promptTokens = 120;
  working.completionTokens = 30;
  await Promise.all([failing.start(), working.start()]);

  await root.setOption('RetryTimes', '1');
  const failingId = await createChannel(root, `${username}-a`, failing.baseUrl, ['gpt-4o-mini'], 10);
  const workingId = await createChannel(root, `${username}-b`, working.baseUrl, ['gpt-4o-mini', 'gpt-3.5-turbo'], 0);

  const password = 'password123';
  const userId = await root.createUser(username, password);
  const profile = await root.must<{ display_name: string; group: string }>('GET', `/api/user/${userId}`);
  await root.must('PUT', '/api/user/', {
    id: userId,
    username,
    display_name: profile.display_name,
    password: '',
    group: profile.group,
    quota: 5_000_000,
  });
  const [code] = await root.must<string[]>('POST', '/api/redemption/', { name: `${username}-code`.slice(0, 20), quota: 500_000, count: 1 });
  const session = await ApiSession.login(target.baseUrl, username, password);
  await session.must('POST', '/api/user/topup', { key: code });

  const tokenName = `${username}-key`;
  const userKey = await createToken(session, tokenName);
  const rootTokenName = 'root-key';
  const rootKey = await createToken(root, rootTokenName);
  await routable(target.baseUrl, userKey, 'gpt-4o-mini');
  await relay(target.baseUrl, userKey, 'gpt-4o-mini', false);
  await untilLogRows(root, 2, 1);

  // Every row so far is older than the cut-off second; the rest are created at it or later.
  const cutoff = Math.floor(Date.now() / 1000) + 1;
  await sleep(cutoff * 1000 - Date.now() + 50);
  await relay(target.baseUrl, userKey, 'gpt-3.5-turbo', true);
  await relay(target.baseUrl, rootKey, 'gpt-4o-mini', false);
  await untilLogRows(root, 2, 3);

  return {
    user: { id: userId, username, password, tokenName, session },
    rootTokenName,
    channels: { failing: failingId, working: workingId },
    cutoff,
    upstreams: [failing, working],
  };
}
