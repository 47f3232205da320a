import type { UpstreamChannel } from '../upstream-adapter';

export const OPENAI_BASE_URL = 'https://api.openai.com';

/** Bearer key, plus OpenAI-Organization when the channel names one. */
export function openAIAuthHeaders(channel: UpstreamChannel): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${channel.key}` };
  if (channel.openaiOrganization) headers['openai-organization'] = channel.openaiOrganization;
  return headers;
}
