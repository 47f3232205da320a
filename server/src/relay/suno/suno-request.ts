import { localTaskError } from './suno-http';

/** The Suno actions new-api relays (the route's `:action`, upper-cased). */
export type SunoAction = 'MUSIC' | 'LYRICS';

const STRING_FIELDS = ['gpt_description_prompt', 'prompt', 'mv', 'title', 'tags', 'task_id', 'continue_clip_id'] as const;

export interface SunoSubmit {
  action: SunoAction;
  /** `suno_` + lower(action): the channel's and the price's model. */
  model: string;
  /** What is sent upstream (SunoSubmitReq, `mv` defaulted for MUSIC). */
  body: Record<string, unknown>;
  /** What the task list shows as its input (the prompt, else the description prompt). */
  input: string;
  /** The task a continuation continues (its upstream id), else null. */
  originTaskId: string | null;
}

/**
 * A submit's action and body checked as new-api checks them (SunoSubmitReq): MUSIC (mv defaults to chirp-v3-0) or
 * LYRICS (a prompt required), anything else `invalid_action`; a `continue_clip_id` needs the `task_id` it continues.
 */
export function sunoSubmitOf(actionParam: string, body: Record<string, unknown>): SunoSubmit {
  const action = actionParam.toUpperCase();
  if (action !== 'MUSIC' && action !== 'LYRICS') throw localTaskError('invalid_request', 'invalid_action');
  for (const field of STRING_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') {
      throw localTaskError('invalid_request', `${field} must be a string`);
    }
  }
  if (body.continue_at !== undefined && body.continue_at !== null && typeof body.continue_at !== 'number') {
    throw localTaskError('invalid_request', 'continue_at must be a number');
  }
  if (body.make_instrumental !== undefined && body.make_instrumental !== null && typeof body.make_instrumental !== 'boolean') {
    throw localTaskError('invalid_request', 'make_instrumental must be a boolean');
  }
  const forwarded: Record<string, unknown> = { ...body };
  if (action === 'MUSIC' && !forwarded.mv) forwarded.mv = 'chirp-v3-0';
  if (action === 'LYRICS' && !forwarded.prompt) throw localTaskError('invalid_request', 'prompt_empty');
  let originTaskId: string | null = null;
  if (typeof body.continue_clip_id === 'string' && body.continue_clip_id !== '') {
    if (typeof body.task_id !== 'string' || body.task_id === '') throw localTaskError('invalid_request', 'task id is empty');
    originTaskId = body.task_id;
  }
  const input =
    typeof body.prompt === 'string' && body.prompt !== ''
      ? body.prompt
      : typeof body.gpt_description_prompt === 'string'
        ? body.gpt_description_prompt
        : '';
  return { action, model: `suno_${action.toLowerCase()}`, body: forwarded, input, originTaskId };
}

/** new-api's retry rule for a failed task submit (shouldRetryTaskRelay): never a local error, a 400 or a 408. */
export function shouldRetryTask(status: number, local: boolean): boolean {
  if (local) return false;
  if (status === 429 || status === 307) return true;
  if (Math.floor(status / 100) === 5) return true;
  if (status === 400 || status === 408) return false;
  return Math.floor(status / 100) !== 2;
}
