import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

/** The console's default for a new Azure channel. */
export const AZURE_DEFAULT_API_VERSION = '2023-06-01-preview';

const CLOUDFLARE_GATEWAY = 'https://gateway.ai.cloudflare.com';

/** Client `?api-version=`, else the channel's `other`, else the default. */
export function azureApiVersion(query: string, other: string | null): string {
  if (query) {
    for (const pair of query.split('&')) {
      if (pair.startsWith('api-version=')) {
        const value = decodeURIComponent(pair.slice('api-version='.length));
        if (value) return value;
      }
    }
  }
  return other ? other : AZURE_DEFAULT_API_VERSION;
}

/** Deployment names cannot contain "." (https://learn.microsoft.com/azure/ai-services/openai/how-to/create-resource), so gpt-3.5-turbo is deployed as gpt-35-turbo. */
export function azureDeploymentName(model: string): string {
  return model.replaceAll('.', '');
}

/**
 * `{base}/openai/deployments/{deployment}/{client path after /v1/}?api-version={v}`. Other client query
 * parameters are not forwarded. Cloudflare's AI Gateway URL already contains the `/openai/deployments` part.
 */
export function azureTarget(input: UpstreamRequestInput, baseUrl: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const task = input.path.startsWith('/v1/') ? input.path.slice(4) : input.path.replace(/^\/+/, '');
  const deployments = baseUrl.startsWith(CLOUDFLARE_GATEWAY) ? '' : '/openai/deployments';
  const version = encodeURIComponent(azureApiVersion(input.query, input.channel.other));
  return upstreamTarget(splitBaseUrl(baseUrl), `${deployments}/${azureDeploymentName(input.upstreamModel)}/${task}?api-version=${version}`);
}
