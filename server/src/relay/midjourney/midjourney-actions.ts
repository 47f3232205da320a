/**
 * Pure rules of the Midjourney routes (relay-behaviour.md §7.1): which action and priced model a submit is, the
 * Plus `customId` and the simple-change `content` parsed, the body filtered as the Mj* options say, the upstream's
 * result codes rewritten.
 */

export type MjSubmitKind =
  | 'imagine'
  | 'describe'
  | 'blend'
  | 'change'
  | 'simple-change'
  | 'action'
  | 'modal'
  | 'shorten'
  | 'swap_face'
  | 'upload';

/** A client error of the Midjourney routes: new-api's `{description, type, code}` with a local code (4 request, 5 unknown). */
export class MjRequestError extends Error {
  constructor(
    readonly description: string,
    readonly code = 4,
    readonly status = 400,
    readonly type = 'new_api_error',
  ) {
    super(description);
  }

  toBody(): { description: string; type: string; code: number } {
    return { description: this.description, type: this.type, code: this.code };
  }
}

/** What a submit is: its action, the model it is priced and routed as, and the original task of an action task. */
export interface MjSubmit {
  action: string;
  model: string;
  /** The task an action works on (change, simple-change, action, modal); null for a fresh task. */
  originalTaskId: string | null;
  prompt: string;
}

const lowerModel = (action: string) => `mj_${action.toLowerCase()}`;

/** new-api's price names of the actions that are not `mj_<lower(action)>`. */
const MODEL_OF: Record<string, string> = { SWAP_FACE: 'swap_face' };

export const mjModelOf = (action: string): string => MODEL_OF[action] ?? lowerModel(action);

/** `MJ::JOB::<act>::<idx>::<uuid>` (and the Outpaint / CustomZoom / Inpaint ids) → action. */
export function actionOfCustomId(customId: string): string {
  if (customId === '') throw new MjRequestError('custom_id_is_required');
  const parts = customId.split('::');
  const act = parts[2] ?? '';
  if (act === 'upsample') return 'UPSCALE';
  if (act === 'variation') return 'VARIATION';
  if (act === 'low_variation') return 'LOW_VARIATION';
  if (act === 'high_variation') return 'HIGH_VARIATION';
  if (act.startsWith('pan')) return 'PAN';
  if (act === 'reroll') return 'REROLL';
  if (customId.startsWith('MJ::Outpaint::')) return 'ZOOM';
  if (customId.startsWith('MJ::CustomZoom::')) return 'CUSTOM_ZOOM';
  if (customId.startsWith('MJ::Inpaint::')) return 'INPAINT';
  throw new MjRequestError(`unknown_action:${customId}`);
}

const SIMPLE_CHANGE = /^\s*(\S+)\s+([UVR])([1-4])?\s*$/i;

/**
 * The simple-change `content` ("<taskId> U2", "<taskId> V1", "<taskId> R") parsed into task, action and index. new-api
 * did not parse it (the model became `mj_` and no channel was ever found): fixed here.
 */
export function parseSimpleChange(content: string): { taskId: string; action: string; index: number | null } {
  const match = SIMPLE_CHANGE.exec(content);
  if (!match) throw new MjRequestError('content_parse_failed');
  const letter = match[2].toUpperCase();
  const action = letter === 'U' ? 'UPSCALE' : letter === 'V' ? 'VARIATION' : 'REROLL';
  const index = match[3] ? Number(match[3]) : null;
  if (action !== 'REROLL' && index === null) throw new MjRequestError('index_parse_failed');
  return { taskId: match[1], action, index };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The submit a route and its body make, or the local error new-api answers. */
export function mjSubmitOf(kind: MjSubmitKind, body: Record<string, unknown>): MjSubmit {
  const prompt = text(body.prompt);
  switch (kind) {
    case 'imagine':
      if (prompt === '') throw new MjRequestError('prompt_is_required');
      return { action: 'IMAGINE', model: 'mj_imagine', originalTaskId: null, prompt };
    case 'describe':
      return { action: 'DESCRIBE', model: 'mj_describe', originalTaskId: null, prompt };
    case 'blend':
      return { action: 'BLEND', model: 'mj_blend', originalTaskId: null, prompt };
    case 'shorten':
      return { action: 'SHORTEN', model: 'mj_shorten', originalTaskId: null, prompt };
    case 'upload':
      return { action: 'UPLOAD', model: 'mj_upload', originalTaskId: null, prompt };
    case 'swap_face':
      if (text(body.sourceBase64) === '' || text(body.targetBase64) === '')
        throw new MjRequestError('sour_base64_and_target_base64_is_required');
      return { action: 'SWAP_FACE', model: 'swap_face', originalTaskId: null, prompt };
    case 'modal':
      if (text(body.taskId) === '') throw new MjRequestError('task_id_is_required');
      return { action: 'MODAL', model: 'mj_modal', originalTaskId: text(body.taskId), prompt };
    case 'change': {
      const action = text(body.action).toUpperCase();
      if (text(body.taskId) === '') throw new MjRequestError('task_id_is_required');
      if (!/^[A-Z_]+$/.test(action)) throw new MjRequestError('action_is_required');
      if (action !== 'REROLL' && !(typeof body.index === 'number' && Number.isInteger(body.index) && body.index >= 1)) {
        throw new MjRequestError('index_parse_failed');
      }
      return { action, model: mjModelOf(action), originalTaskId: text(body.taskId), prompt };
    }
    case 'simple-change': {
      const parsed = parseSimpleChange(text(body.content));
      return { action: parsed.action, model: mjModelOf(parsed.action), originalTaskId: parsed.taskId, prompt };
    }
    case 'action': {
      const action = actionOfCustomId(text(body.customId));
      if (text(body.taskId) === '') throw new MjRequestError('task_id_is_required');
      return { action, model: mjModelOf(action), originalTaskId: text(body.taskId), prompt };
    }
  }
}

/** Actions new-api never charges. */
export const isFreeAction = (action: string): boolean => action === 'INPAINT' || action === 'CUSTOM_ZOOM';

const MODE_FLAGS = /\s*--(fast|relax|turbo)\b/g;

/** The body sent upstream: accountFilter and notifyHook kept only when their options allow, mode flags cleared on request. */
export function upstreamBody(
  body: Record<string, unknown>,
  options: { accountFilter: boolean; notifyHook: boolean; modeClear: boolean },
): Record<string, unknown> {
  const next = { ...body };
  if (!options.accountFilter) delete next.accountFilter;
  if (!options.notifyHook) delete next.notifyHook;
  if (options.modeClear && typeof next.prompt === 'string') next.prompt = next.prompt.replace(MODE_FLAGS, '');
  return next;
}

/** Codes that mean the upstream took the task (and the submit is charged). */
export function isAccepted(action: string, code: number): boolean {
  if (action === 'SWAP_FACE') return code === 1;
  return code === 1 || code === 21 || code === 22;
}

/** The answer's rewriting: 21 ("exists") → 1 except for inpaint and custom zoom, 22 ("queued") → 1. */
export function rewriteResultCode(raw: string, action: string): string {
  let next = raw.replace(/"code"\s*:\s*22(?=\D)/, '"code":1');
  if (!isFreeAction(action)) next = next.replace(/"code"\s*:\s*21(?=\D)/, '"code":1');
  return next;
}

/** The path sent upstream: the `/:mode` prefix stripped (`/mj-fast/mj/submit/imagine` → `/mj/submit/imagine`). */
export function upstreamPath(path: string): string {
  const index = path.indexOf('/mj/');
  return index < 0 ? path : path.slice(index);
}
