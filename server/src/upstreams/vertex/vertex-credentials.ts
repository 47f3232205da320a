import { UpstreamLocalError } from '../upstream-errors';

/** Google's OAuth token endpoint for service accounts (`token_uri` of a key file). */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  /** PKCS#8 PEM */
  privateKey: string;
  tokenUri: string;
}

const keyError = (detail: string) =>
  new UpstreamLocalError(`the Vertex AI channel key must be a service-account JSON key: ${detail}`, 'invalid_channel_key', 500);

/** The channel key: a whole service-account JSON key file (project_id, client_email, private_key, token_uri). */
export function parseServiceAccount(key: string): ServiceAccount {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(key) as Record<string, unknown>;
  } catch {
    throw keyError('not JSON');
  }
  const text = (name: string) => (typeof parsed?.[name] === 'string' ? (parsed[name] as string) : '');
  const projectId = text('project_id');
  const clientEmail = text('client_email');
  // Keys pasted through forms sometimes carry literal "\n" sequences instead of line breaks.
  const privateKey = text('private_key').replace(/\\n/g, '\n');
  if (!projectId || !clientEmail || !privateKey) throw keyError('project_id, client_email and private_key are required');
  const tokenUri = text('token_uri') || GOOGLE_TOKEN_URI;
  if (!/^https?:\/\/[^/]+/.test(tokenUri)) throw keyError('token_uri is not a URL');
  return { projectId, clientEmail, privateKey, tokenUri };
}

/**
 * The region for a model: `other` as a plain region, or a JSON map `{"default": "...", "<model>": "..."}` looked up
 * by the model name (the mapped one first, then the client's), else `default`.
 */
export function vertexRegion(other: string | null, models: readonly string[]): string {
  const text = (other ?? '').trim();
  if (!text.startsWith('{')) return text || 'us-central1';
  let regions: Record<string, unknown> = {};
  try {
    regions = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UpstreamLocalError('the Vertex AI channel region (other) is not valid JSON', 'invalid_channel_other', 500);
  }
  for (const model of models) if (typeof regions[model] === 'string') return regions[model] as string;
  if (typeof regions.default === 'string' && regions.default) return regions.default;
  return 'us-central1';
}
