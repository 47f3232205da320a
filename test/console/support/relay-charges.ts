import { ApiSession } from './api-client';

/** Relay charges for console specs: a channel to a fake upstream, users with tokens, real `/v1` requests. */

/** Creates an OpenAI-type channel serving `models` from the fake at `upstreamUrl`. */
export const createFakeChannel = async (root: ApiSession, upstreamUrl: string, models: string[]): Promise<void> => {
  await root.must('POST', '/api/channel/', {
    type: 1,
    key: 'upstream-key',
    name: 'console-fake',
    base_url: upstreamUrl,
    models: models.join(','),
    group: 'default',
    priority: 0,
    weight: 0,
    model_mapping: '',
    other: '',
    status_code_mapping: '',
    auto_ban: 0,
  });
};

export interface RelayUser {
  id: number;
  username: string;
  session: ApiSession;
  /** The sk- key of an unlimited token of theirs. */
  key: string;
}

/** A common user created by root, holding `quota` (a redeemed code) and an unlimited token. */
export const createRelayUser = async (root: ApiSession, baseUrl: string, username: string, quota: number): Promise<RelayUser> => {
  const id = await root.createUser(username, 'password123');
  const [code] = await root.must<string[]>('POST', '/api/redemption/', { name: 'relay', quota, count: 1 });
  const session = await ApiSession.login(baseUrl, username, 'password123');
  await session.must('POST', '/api/user/topup', { key: code });
  await session.must('POST', '/api/token/', {
    name: 'relay',
    remain_quota: 0,
    expired_time: -1,
    unlimited_quota: true,
    model_limits_enabled: false,
    model_limits: '',
    allow_ips: '',
    group: '',
  });
  const list = await session.must<{ items?: Array<{ key: string }> } | Array<{ key: string }>>('GET', '/api/token/?p=0&size=1');
  const row = Array.isArray(list) ? list[0] : list.items?.[0];
  if (!row) throw new Error(`no token for ${username}`);
  return { id, username, session, key: `sk-${row.key}` };
};

/** One chat completion through the relay; waits (briefly) until the channel's models are routable. */
export const relayChat = async (baseUrl: string, key: string, model: string): Promise<void> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
    });
    const text = await response.text();
    if (response.status === 200) return;
    if (Date.now() > deadline) throw new Error(`relay ${model} answered ${response.status}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
