import { randomUUID } from 'node:crypto';
import { createAnthropicAdapter } from './anthropic/anthropic-adapter';
import { createAliAdapter } from './ali/ali-adapter';
import { createAwsAdapter } from './aws/aws-adapter';
import { createAzureAdapter } from './azure/azure-adapter';
import { createBaiduAdapter } from './baidu/baidu-adapter';
import { ChannelType } from './channel-types';
import { createCloudflareAdapter } from './cloudflare/cloudflare-adapter';
import { createCohereAdapter } from './cohere/cohere-adapter';
import { createDifyAdapter } from './dify/dify-adapter';
import { createGeminiAdapter } from './gemini/gemini-adapter';
import { createMiniMaxAdapter } from './minimax/minimax-adapter';
import { createOllamaAdapter } from './ollama/ollama-adapter';
import { createOpenAIAdapter } from './openai/openai-adapter';
import { createPalmAdapter } from './palm/palm-adapter';
import { compatibleProfiles, genericCompatibleProfile } from './openai-compatible/compatible-profiles';
import { createOpenAICompatibleAdapter } from './openai-compatible/create-openai-compatible-adapter';
import { createSparkAdapter } from './spark/spark-adapter';
import type { UpstreamAdapter, UpstreamSettings } from './upstream-adapter';
import { createVertexAdapter } from './vertex/vertex-adapter';
import { InvalidApiTypeError } from './upstream-errors';
import { createZhipuV3Adapter } from './zhipu/zhipu-v3-adapter';
import { createZhipuV4Adapter } from './zhipu/zhipu-v4-profile';
import { createTencentAdapter } from './tencent/tencent-adapter';

export const DEFAULT_UPSTREAM_SETTINGS: UpstreamSettings = {
  forceStreamUsage: true,
  geminiSafetyThreshold: 'BLOCK_NONE',
  difyDebug: true,
  maxStreamLineBytes: 10 * 1024 * 1024,
  now: Date.now,
  newId: () => randomUUID().replaceAll('-', ''),
};

export interface UpstreamRegistry {
  /** The adapter for a channel type; throws InvalidApiTypeError for type 21. */
  get(channelType: number): UpstreamAdapter;
}

type AdapterFactory = (settings: UpstreamSettings) => UpstreamAdapter;

/** Channel types with an adapter of their own. A new channel type is one folder and one line here. */
const dedicatedAdapters: ReadonlyArray<readonly [number, AdapterFactory]> = [
  [ChannelType.OpenAI, createOpenAIAdapter],
  [ChannelType.Azure, createAzureAdapter],
  [ChannelType.Ollama, createOllamaAdapter],
  [ChannelType.Anthropic, createAnthropicAdapter],
  [ChannelType.Gemini, createGeminiAdapter],
  [ChannelType.Zhipu, createZhipuV3Adapter],
  [ChannelType.ZhipuV4, createZhipuV4Adapter],
  [ChannelType.Baidu, createBaiduAdapter],
  [ChannelType.Ali, (settings) => createAliAdapter(settings)],
  [ChannelType.Cohere, createCohereAdapter],
  [ChannelType.Tencent, createTencentAdapter],
  [ChannelType.Cloudflare, createCloudflareAdapter],
  [ChannelType.Dify, createDifyAdapter],
  [ChannelType.PaLM, createPalmAdapter],
  [ChannelType.MiniMax, createMiniMaxAdapter],
  [ChannelType.Aws, createAwsAdapter],
  [ChannelType.VertexAI, createVertexAdapter],
  [ChannelType.Xunfei, createSparkAdapter],
];

/**
 * Builds every adapter once for the given settings (the relay and the channel tests each make one registry at
 * start-up from their configuration, GEMINI_SAFETY_SETTING included); lookups are an array index. Settings not
 * given are the defaults.
 */
export function createUpstreamRegistry(overrides: Partial<UpstreamSettings> = {}): UpstreamRegistry {
  const settings: UpstreamSettings = { ...DEFAULT_UPSTREAM_SETTINGS, ...overrides };
  const byType: UpstreamAdapter[] = [];
  for (const [type, profile] of compatibleProfiles) byType[type] = createOpenAICompatibleAdapter(profile, settings);
  for (const [type, create] of dedicatedAdapters) byType[type] = create(settings);
  // As in new-api, a type without an adapter of its own speaks OpenAI's protocol on its base URL.
  const generic = createOpenAICompatibleAdapter(genericCompatibleProfile, settings);
  return {
    get(channelType) {
      if (channelType === ChannelType.AIProxyLibrary) throw new InvalidApiTypeError();
      return byType[channelType] ?? generic;
    },
  };
}

let defaultRegistry: UpstreamRegistry | undefined;

/** The adapter for a channel type with the default settings. */
export function getUpstreamAdapter(channelType: number): UpstreamAdapter {
  defaultRegistry ??= createUpstreamRegistry();
  return defaultRegistry.get(channelType);
}
