import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { ClientGoneSignal, type RelaySignal } from './client-gone-signal';
import { relayHttpRequest } from './relay-routes';

describe('ClientGoneSignal', () => {
  it('fires each listener once, in order, and turns aborted on for good', () => {
    const signal = new ClientGoneSignal();
    const calls: string[] = [];
    signal.addEventListener('abort', () => calls.push('a'));
    signal.addEventListener('abort', () => calls.push('b'), { once: true });
    expect(signal.aborted).toBe(false);
    signal.abort();
    signal.abort();
    expect(signal.aborted).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('does not call a removed listener, nor one added after the abort; removing an unknown one is harmless', () => {
    const signal = new ClientGoneSignal();
    const removed = jest.fn();
    const kept = jest.fn();
    signal.removeEventListener('abort', removed);
    signal.addEventListener('abort', removed);
    signal.addEventListener('abort', kept);
    signal.removeEventListener('abort', removed);
    signal.abort();
    const late = jest.fn();
    signal.addEventListener('abort', late);
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(late).not.toHaveBeenCalled();
  });

  it('lets a real AbortSignal stand in wherever the relay takes one', () => {
    const controller = new AbortController();
    const signal: RelaySignal = controller.signal;
    const listener = jest.fn();
    signal.addEventListener('abort', listener, { once: true });
    controller.abort();
    expect(signal.aborted).toBe(true);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});

describe('relayHttpRequest signal', () => {
  const response = (finished: boolean) => Object.assign(new EventEmitter(), { writableFinished: finished }) as unknown as ServerResponse;

  it('aborts when the connection closes before the answer ended', () => {
    const res = response(false);
    const request = relayHttpRequest('id', '/v1/chat/completions/', {}, '127.0.0.1', res, null);
    expect(request.path).toBe('/v1/chat/completions');
    const listener = jest.fn();
    request.signal.addEventListener('abort', listener);
    res.emit('close');
    expect(request.signal.aborted).toBe(true);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('stays quiet when the answer ended first', () => {
    const res = response(true);
    const request = relayHttpRequest('id', '/v1/embeddings?x=1', {}, '127.0.0.1', res, null);
    expect(request.query).toBe('x=1');
    const listener = jest.fn();
    request.signal.addEventListener('abort', listener);
    res.emit('close');
    expect(request.signal.aborted).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });
});
