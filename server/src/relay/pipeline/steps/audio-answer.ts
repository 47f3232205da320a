import type { RoutableChannel } from '../../relay-ports';
import { release } from './admission';
import { HOP_BY_HOP, type UpstreamAnswer, waitForDrain } from './answer-writes';
import { isDrainExpired } from '../../upstream-client/upstream-http-client';
import { endedBy, settle } from './charge-builder';
import { promptTokens, type RelayContext, type RelayDeps } from './relay-context';

/**
 * Text to speech: the upstream's audio goes to the client chunk by chunk as it arrives (no buffering of the
 * whole file), with the upstream's headers. The charge is the input (characters for tts-*, as new-api counts), so
 * it is settled once the audio has been passed on, before the response ends. An upstream that breaks off
 * mid-file breaks the client's response off too (a binary body has no error event) and still charges the input
 * it was sent. An answer without one byte of audio charges nothing and releases the reservation, unless the
 * client left and the upstream was still working when the drain bound ran out (then the input is charged).
 */
export async function pipeAudio(
  deps: RelayDeps,
  context: RelayContext,
  channel: RoutableChannel,
  upstreamModel: string,
  answer: UpstreamAnswer,
): Promise<void> {
  const response = context.response;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (HOP_BY_HOP.has(name)) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') headers[name] = first;
  }
  headers['content-type'] = answer.contentType || 'application/octet-stream';
  headers['x-oneapi-request-id'] = context.request.requestId;
  response.writeHead(200, headers);
  let bytes = 0;
  let broken = false;
  let drained = false;
  try {
    for await (const chunk of answer.body) {
      bytes += chunk.length;
      if (!response.destroyed && !response.write(chunk)) await waitForDrain(response);
    }
  } catch (error) {
    broken = true;
    drained = isDrainExpired(error);
    if (!drained)
      deps.logger.warn(
        `channel #${channel.id}: audio stream broke off after ${bytes} bytes: ${String((error as Error)?.message ?? error)}`,
      );
    answer.body.destroy();
  }
  // A call the relay cut because its client left says nothing about the channel.
  if (!drained) {
    deps.outcomes.report({
      channelId: channel.id,
      ok: !broken,
      status: broken ? 502 : 200,
      errorCode: broken ? 'cut' : null,
      message: '',
      source: 'relay',
    });
  }
  if (bytes > 0 || drained) {
    await settle(
      deps,
      context,
      channel,
      upstreamModel,
      // Speech is charged by its input, counted here.
      { promptTokens: promptTokens(context, upstreamModel), completionTokens: 0, cachedTokens: 0, source: 'estimated' },
      null,
      endedBy(context, broken ? 'cut_stream' : 'completed'),
    );
  } else {
    await release(deps, context);
  }
  if (broken) response.destroy();
  else if (!response.destroyed) response.end();
}
