import { SseEventDecoder } from './sse-event-decoder';

function decode(text: string, splitAt?: number): Array<[string, string]> {
  const events: Array<[string, string]> = [];
  const decoder = new SseEventDecoder(1 << 20, (event, data) => events.push([event, data]));
  const bytes = Buffer.from(text);
  if (splitAt === undefined) decoder.push(bytes);
  else {
    decoder.push(bytes.subarray(0, splitAt));
    decoder.push(bytes.subarray(splitAt));
  }
  decoder.flush();
  return events;
}

describe('SseEventDecoder', () => {
  it('reads named events, comments, multi-line data and CRLF framing', () => {
    const text = ': keep-alive\n\nevent: ping\ndata: {"type": "ping"}\n\nid: 7\ndata:first\ndata: second\n\r\ndata: {"a":1}\r\n\r\n';
    expect(decode(text)).toEqual([
      ['ping', '{"type": "ping"}'],
      ['', 'first\nsecond'],
      ['', '{"a":1}'],
    ]);
  });

  it('gives the same events for every split point', () => {
    const text = 'event: message_start\ndata: {"x":"é"}\n\nevent: message_stop\ndata: {}\n\n';
    const expected = decode(text);
    for (let i = 0; i <= Buffer.byteLength(text); i++) expect(decode(text, i)).toEqual(expected);
  });

  it('delivers a last event that lacks its blank line, and drops an event name without data', () => {
    expect(decode('event: a\n\nevent: b\ndata: 1')).toEqual([['b', '1']]);
  });

  it('reports a line over the limit', () => {
    const decoder = new SseEventDecoder(8, () => undefined);
    expect(decoder.push(Buffer.from('data: 0123456789\n'))).toBe(false);
  });
});
