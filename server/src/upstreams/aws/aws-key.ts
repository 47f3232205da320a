import { UpstreamLocalError } from '../upstream-errors';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** A Bedrock channel's key `AK|SK|region` (new-api's format); anything else fails locally. */
export function parseAwsKey(key: string): AwsCredentials {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => part === '')) {
    throw new UpstreamLocalError('the AWS channel key must be AccessKeyId|SecretAccessKey|Region', 'invalid_channel_key', 500);
  }
  const [accessKeyId, secretAccessKey, region] = parts;
  return { accessKeyId, secretAccessKey, region };
}
