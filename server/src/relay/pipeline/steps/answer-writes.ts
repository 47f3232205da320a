import type { ServerResponse } from 'node:http';
import type { UpstreamCallAnswer } from '../../../upstreams/upstream-adapter';

/** The upstream's answer as the HTTP client (or an adapter's own call) hands it over: status, headers and a body still to read. */
export type UpstreamAnswer = UpstreamCallAnswer;

/** Upstream headers that describe the upstream connection, not the answer: never passed on to the client. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'proxy-connection',
  'upgrade',
  'trailer',
  'te',
  'date',
  'server',
]);

export function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
