import WebSocket from 'ws';
import { answerFromBytes, PushedBody } from '../shared/call-answer';
import type { UpstreamCallAnswer, UpstreamCallContext, UpstreamRequest } from '../upstream-adapter';
import { UpstreamCallFailedError } from '../upstream-errors';
import { frameError, isLastFrame, type SparkFrame, statusOfSparkCode } from './spark-frames';

/** What the frames are handed on as (not text/event-stream: the relay would stream a non-stream answer). */
export const SPARK_FRAMES_TYPE = 'application/x-spark-frames';

/** new-api's handshake timeout. */
const HANDSHAKE_TIMEOUT_MS = 5000;

/**
 * Opens the signed WebSocket, sends the request frame and hands the answer frames on as `data: <frame>` lines.
 * Resolves at the first frame: an error frame then (bad APPID, quota, audit) is an HTTP-like failure the relay may
 * retry elsewhere; a refused handshake (a bad signature: 401/403) is that status with iFlytek's body.
 */
export function callSpark(request: UpstreamRequest, context: UpstreamCallContext): Promise<UpstreamCallAnswer> {
  return new Promise((resolve, reject) => {
    const handshakeTimeout = context.headersTimeoutMs > 0 ? Math.min(context.headersTimeoutMs, HANDSHAKE_TIMEOUT_MS) : HANDSHAKE_TIMEOUT_MS;
    const socket = new WebSocket(request.url, { handshakeTimeout });
    const body = new PushedBody(() => socket.terminate());
    let answered = false;
    let idle: NodeJS.Timeout | null = null;
    const stopIdle = () => idle && clearTimeout(idle);
    const armIdle = () => {
      stopIdle();
      if (context.bodyTimeoutMs > 0) {
        idle = setTimeout(() => {
          body.fail(new Error('iFlytek Spark stream timed out'));
          socket.terminate();
        }, context.bodyTimeoutMs);
      }
    };
    const answer = (value: UpstreamCallAnswer) => {
      answered = true;
      resolve(value);
    };
    const onAbort = () => socket.terminate();
    context.signal?.addEventListener('abort', onAbort, { once: true });

    socket.on('unexpected-response', (httpRequest, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        answer(answerFromBytes(response.statusCode ?? 500, String(response.headers['content-type'] ?? ''), Buffer.concat(chunks)));
        httpRequest.destroy();
      });
    });
    socket.on('open', () => {
      armIdle();
      socket.send(typeof request.body === 'string' ? request.body : Buffer.from(request.body ?? ''));
    });
    socket.on('message', (data: WebSocket.RawData) => {
      armIdle();
      let frame: SparkFrame;
      try {
        frame = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8')) as SparkFrame;
      } catch {
        frame = { header: { code: -1, message: 'iFlytek Spark sent a frame that is not JSON', status: 2 } };
      }
      const error = frameError(frame);
      if (!answered && error) {
        const status = statusOfSparkCode(Number(frame.header?.code));
        answer(answerFromBytes(status, 'application/json', JSON.stringify({ error })));
        socket.close();
        return;
      }
      if (!answered) answer({ status: 200, contentType: SPARK_FRAMES_TYPE, headers: { 'content-type': SPARK_FRAMES_TYPE }, body });
      body.push(`data: ${JSON.stringify(frame)}\n\n`);
      if (isLastFrame(frame) || error) {
        body.end();
        socket.close();
      }
    });
    socket.on('close', () => {
      stopIdle();
      if (!answered) reject(new UpstreamCallFailedError('iFlytek Spark closed the connection before answering'));
      else body.end();
    });
    socket.on('error', (error: Error) => {
      stopIdle();
      if (!answered) reject(new UpstreamCallFailedError(`iFlytek Spark: ${error.message}`));
      else body.fail(error);
    });
  });
}
