import type { MidjourneyTaskProgress } from '../../modules/tasks';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const millis = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
const json = (value: unknown): string => (value === undefined || value === null ? '' : JSON.stringify(value));

/**
 * A task as a Midjourney-Proxy reports it (list-by-condition item, notify body) in the task's progress fields; what
 * it leaves out keeps the stored value's place only for the description (new-api copies these fields as they come).
 */
export function upstreamProgress(
  item: Record<string, unknown>,
  stored: { description: string; submitTime: number },
): MidjourneyTaskProgress {
  return {
    code: 1,
    promptEn: text(item.promptEn),
    description: text(item.description) || stored.description,
    state: text(item.state),
    submitTime: millis(item.submitTime) || stored.submitTime,
    startTime: millis(item.startTime),
    finishTime: millis(item.finishTime),
    imageUrl: text(item.imageUrl),
    status: text(item.status),
    progress: text(item.progress),
    failReason: text(item.failReason),
    buttons: json(item.buttons),
    properties: json(item.properties),
  };
}
