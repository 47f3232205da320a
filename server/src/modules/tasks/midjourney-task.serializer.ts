import type { MidjourneyTaskEntity } from '#projections/read-models/midjourney-tasks/midjourney-task.entity';
import { DEFAULT_SERVER_ADDRESS } from '../options/option-defaults';

/** What the image URL rewriting needs from the options. */
export interface MjUrlOptions {
  getBool(key: string): boolean;
  get(key: string): string;
}

/**
 * The task's image URL as clients get it: with MjForwardUrlEnabled (default on) `<ServerAddress>/mj/image/<mj id>`
 * (served by the relay, which fetches the stored URL), with `?rand=<ns>` while the task is not SUCCESS so a client
 * does not cache a half-drawn image; otherwise the upstream's URL. No URL stays empty.
 */
export function clientImageUrl(task: Pick<MidjourneyTaskEntity, 'imageUrl' | 'mjId' | 'status'>, options: MjUrlOptions): string {
  if (task.imageUrl === '' || !options.getBool('MjForwardUrlEnabled')) return task.imageUrl;
  const address = (options.get('ServerAddress') || DEFAULT_SERVER_ADDRESS).replace(/\/+$/, '');
  const url = `${address}/mj/image/${task.mjId}`;
  return task.status === 'SUCCESS' ? url : `${url}?rand=${process.hrtime.bigint()}`;
}

function parsedJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** new-api's MidjourneyDto, the relay's fetch and list-by-condition answer. */
export function toMidjourneyDto(task: MidjourneyTaskEntity, options: MjUrlOptions) {
  const properties = parsedJson(task.properties) as { finalPrompt?: string; finalZhPrompt?: string } | null;
  return {
    id: task.mjId,
    action: task.action,
    customId: '',
    botType: '',
    prompt: task.prompt,
    promptEn: task.promptEn,
    description: task.description,
    state: task.state,
    submitTime: task.submitTime,
    startTime: task.startTime,
    finishTime: task.finishTime,
    imageUrl: clientImageUrl(task, options),
    status: task.status,
    progress: task.progress,
    failReason: task.failReason,
    buttons: parsedJson(task.buttons),
    maskBase64: '',
    properties: { finalPrompt: properties?.finalPrompt ?? '', finalZhPrompt: properties?.finalZhPrompt ?? '' },
  };
}

/** A row of the console's drawing lists (new-api's `midjourneys` columns). */
export function toMidjourneyRow(task: MidjourneyTaskEntity, options: MjUrlOptions) {
  return {
    id: task.id,
    code: task.code,
    user_id: task.userId,
    action: task.action,
    mj_id: task.mjId,
    prompt: task.prompt,
    prompt_en: task.promptEn,
    description: task.description,
    state: task.state,
    submit_time: task.submitTime,
    start_time: task.startTime,
    finish_time: task.finishTime,
    image_url: clientImageUrl(task, options),
    status: task.status,
    progress: task.progress,
    fail_reason: task.failReason,
    channel_id: task.channelId,
    quota: task.quota,
    buttons: task.buttons,
    properties: task.properties,
  };
}
