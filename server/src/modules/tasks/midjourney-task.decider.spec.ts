import {
  decide,
  evolve,
  initialMidjourneyTaskState,
  MJ_TASK_TIMEOUT_MS,
  type MidjourneyTaskState,
  refundDue,
} from './midjourney-task.decider';
import { MJ_TIMEOUT_REASON, type MidjourneyTaskFacts, type MidjourneyTaskProgress } from './midjourney-task.events';

const SUBMIT = 1_732_600_000_000;

const facts: MidjourneyTaskFacts = {
  taskId: 'req-1',
  userId: 7,
  username: 'alice',
  tokenId: 3,
  tokenUnlimited: false,
  channelId: 2,
  action: 'IMAGINE',
  mjId: '1712',
  prompt: 'a cat',
  quota: 50000,
  code: 1,
  promptEn: '',
  description: '提交成功',
  state: '',
  submitTime: SUBMIT,
  startTime: 0,
  finishTime: 0,
  imageUrl: '',
  status: '',
  progress: '0%',
  failReason: '',
  buttons: '',
  properties: '',
};

const submitted: MidjourneyTaskState = evolve(initialMidjourneyTaskState, { type: 'MidjourneyTaskSubmitted', data: facts });

const upstream = (changes: Partial<MidjourneyTaskProgress>): MidjourneyTaskProgress => ({
  code: 1,
  promptEn: 'a cat',
  description: '',
  state: '',
  submitTime: SUBMIT,
  startTime: SUBMIT + 1000,
  finishTime: 0,
  imageUrl: '',
  status: 'IN_PROGRESS',
  progress: '40%',
  failReason: '',
  buttons: '',
  properties: '',
  ...changes,
});

function after(state: MidjourneyTaskState, changes: Partial<MidjourneyTaskProgress>, now = SUBMIT + 5000): MidjourneyTaskState {
  return decide({ type: 'ObserveMidjourneyTask', upstream: upstream(changes), now }, state).reduce(evolve, state);
}

describe('Midjourney task decider', () => {
  it('submits once: a second submit of the same task decides nothing', () => {
    expect(decide({ type: 'SubmitMidjourneyTask', task: facts }, initialMidjourneyTaskState)).toEqual([
      { type: 'MidjourneyTaskSubmitted', data: facts },
    ]);
    expect(decide({ type: 'SubmitMidjourneyTask', task: facts }, submitted)).toEqual([]);
  });

  it('copies the upstream progress, and decides nothing when nothing changed', () => {
    const running = after(submitted, {});
    expect(running).toMatchObject({ status: 'IN_PROGRESS', progress: '40%', promptEn: 'a cat', quota: 50000 });
    expect(decide({ type: 'ObserveMidjourneyTask', upstream: upstream({}), now: SUBMIT + 6000 }, running)).toEqual([]);
    const done = after(running, { status: 'SUCCESS', progress: '100%', imageUrl: 'http://img/1.png', finishTime: SUBMIT + 9000 });
    expect(done).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: 'http://img/1.png' });
    expect(refundDue(done)).toBe(false);
  });

  it('fails a task with a fail reason before 100 %, or FAILURE at 100 %; its refund falls due once', () => {
    const failed = after(submitted, { status: 'FAILURE', progress: '10%', failReason: 'banned prompt' });
    expect(failed).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'banned prompt' });
    expect(refundDue(failed)).toBe(true);
    // A second poller run (or a late callback) on the finished task: nothing, so nothing is refunded twice.
    expect(
      decide({ type: 'ObserveMidjourneyTask', upstream: upstream({ status: 'SUCCESS', progress: '100%' }), now: SUBMIT }, failed),
    ).toEqual([]);
    expect(after(submitted, { status: 'FAILURE', progress: '100%' })).toMatchObject({ status: 'FAILURE', progress: '100%' });
  });

  it('fails a task unfinished an hour after its submit with new-api reason', () => {
    const late = after(submitted, {}, SUBMIT + MJ_TASK_TIMEOUT_MS + 1);
    expect(late).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: MJ_TIMEOUT_REASON });
    expect(after(submitted, {}, SUBMIT + MJ_TASK_TIMEOUT_MS)).toMatchObject({ status: 'IN_PROGRESS' });
  });

  it('fails a task no upstream can be asked about; an uncharged failure owes no refund', () => {
    const events = decide({ type: 'FailMidjourneyTask', reason: 'gone' }, { ...submitted, quota: 0 });
    const failed = events.reduce(evolve, { ...submitted, quota: 0 });
    expect(failed).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'gone' });
    expect(refundDue(failed)).toBe(false);
    expect(decide({ type: 'FailMidjourneyTask', reason: 'gone' }, failed)).toEqual([]);
    expect(decide({ type: 'FailMidjourneyTask', reason: 'gone' }, initialMidjourneyTaskState)).toEqual([]);
  });
});
