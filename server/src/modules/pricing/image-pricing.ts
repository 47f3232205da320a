import type { JsonObject } from '../../upstreams/upstream-adapter';
import { RelayError } from '../../common/http/relay-error';
import { pricingFor, type PricingTables } from './relay-pricing';

export interface ImagePricing {
  /** imageRatio = price × size × quality × n, logged as model_price. */
  imageRatio: number;
  groupRatio: number;
  quota: number;
  n: number;
  size: string;
  quality: string;
}

function invalidImage(message: string): RelayError {
  // As in new-api: a bad image request is a 400 in the relay shape, code invalid_image_request.
  return new RelayError(400, message, 'new_api_error', { shape: 'relay', code: 'invalid_image_request' });
}

const DALLE2_SIZES = new Set(['256x256', '512x512', '1024x1024']);
const DALLE3_SIZES = new Set(['1024x1024', '1024x1792', '1792x1024']);

/** Defaults, validation and the price of an image generation, as new-api computes them. */
export function priceImageRequest(tables: PricingTables, body: JsonObject, model: string, group: string): ImagePricing {
  if (typeof body.prompt !== 'string' || body.prompt === '') throw invalidImage('prompt is required');
  const n = typeof body.n === 'number' && body.n > 0 ? Math.trunc(body.n) : 1;
  const size = typeof body.size === 'string' && body.size !== '' ? body.size : '1024x1024';
  if (size.includes('×'))
    throw invalidImage("size an unexpected error occurred in the parameter, please use 'x' instead of the multiplication sign '×'");
  if (model === 'dall-e-2' && !DALLE2_SIZES.has(size)) throw invalidImage('size not supported for this image model');
  if (model === 'dall-e-3' && !DALLE3_SIZES.has(size)) throw invalidImage('size not supported for this image model');
  if (model === 'dall-e-3' && n !== 1) throw invalidImage('n must be 1 for dall-e-3');
  const quality = typeof body.quality === 'string' && body.quality !== '' ? body.quality : 'standard';
  const pricing = pricingFor(tables, model, group);
  const price = pricing.modelPrice >= 0 ? pricing.modelPrice : 0.0025 * pricing.modelRatio;
  const sizeRatio = size.startsWith('256') ? 0.4 : size.startsWith('512') ? 0.45 : size === '1024x1024' ? 1 : 2;
  const tall = size === '1024x1792' || size === '1792x1024';
  const qualityRatio = model === 'dall-e-3' && quality === 'hd' ? (tall ? 1.5 : 2) : 1;
  const imageRatio = price * sizeRatio * qualityRatio * n;
  return {
    imageRatio,
    groupRatio: pricing.groupRatio,
    quota: Math.trunc(imageRatio * pricing.groupRatio * tables.quotaPerUnit),
    n,
    size,
    quality,
  };
}
