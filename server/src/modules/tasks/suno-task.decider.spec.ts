import { decideSuno, evolveSuno, initialSunoTaskState, type SunoTaskState, sunoRefundDue } from './suno-task.decider';
import type { SunoTaskFacts } from './suno-task.events';

const facts: SunoTaskFacts = {
  taskId: 'req-1',
  upstreamTaskId: 'suno-1',
  userId: 7,
  username: 'alice',
  tokenId: 3,
  tokenUnlimited: false,
  channelId: 2,
  action: 'MUSIC',
  quota: 50_000,
  properties: '{"input":"x"}',
  status: 'NOT_START',
  failReason: '',
  submitTime: 100,
  startTime: 0,
  finishTime: 0,
  progress: '0%',
  data: '',
};
const item = { status: '', failReason: '', submitTime: 0, startTime: 0, finishTime: 0, data: '' };

function submitted(): SunoTaskState {
  const [event] = decideSuno({ type: 'SubmitSunoTask', task: facts }, initialSunoTaskState);
  return evolveSuno(initialSunoTaskState, event);
}

describe('suno task decider', () => {
  it('submits once', () => {
    const state = submitted();
    expect(state).toMatchObject({ submitted: true, action: 'MUSIC', status: 'NOT_START' });
    expect(decideSuno({ type: 'SubmitSunoTask', task: facts }, state)).toEqual([]);
  });

  it('copies the non-empty fields, always replaces data, and finishes a SUCCESS at 100 %', () => {
    let state = submitted();
    const [moving] = decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'IN_PROGRESS', startTime: 120 } }, state);
    state = evolveSuno(state, moving);
    expect(state).toMatchObject({ status: 'IN_PROGRESS', startTime: 120, submitTime: 100, progress: '0%' });
    expect(decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'IN_PROGRESS' } }, state)).toEqual([]);
    const [done] = decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'SUCCESS', finishTime: 130, data: '[1]' } }, state);
    state = evolveSuno(state, done);
    expect(state).toMatchObject({ status: 'SUCCESS', progress: '100%', finishTime: 130, startTime: 120, data: '[1]' });
    expect(sunoRefundDue(state)).toBe(false);
    expect(decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'FAILURE' } }, state)).toEqual([]);
  });

  it('fails on a fail reason or FAILURE, once, and owes the refund of a charged task', () => {
    const state = submitted();
    const [failed] = decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'IN_PROGRESS', failReason: 'broke' } }, state);
    const after = evolveSuno(state, failed);
    expect(after).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'broke' });
    expect(sunoRefundDue(after)).toBe(true);
    expect(sunoRefundDue({ ...after, quota: 0 })).toBe(false);
    expect(decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'FAILURE', failReason: 'again' } }, after)).toEqual([]);
    expect(decideSuno({ type: 'FailSunoTask', reason: 'x' }, after)).toEqual([]);
  });

  it('does nothing to a task that does not exist', () => {
    expect(decideSuno({ type: 'ObserveSunoTask', upstream: { ...item, status: 'FAILURE' } }, initialSunoTaskState)).toEqual([]);
    expect(decideSuno({ type: 'FailSunoTask', reason: 'x' }, initialSunoTaskState)).toEqual([]);
  });
});
