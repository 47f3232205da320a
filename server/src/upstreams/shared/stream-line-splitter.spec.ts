import { StreamLineSplitter } from './stream-line-splitter';

function collect(chunks: string[], max = 1024): { lines: string[]; ok: boolean } {
  const splitter = new StreamLineSplitter(max);
  const lines: string[] = [];
  let ok = true;
  const onLine = (buffer: Buffer, start: number, end: number) => lines.push(buffer.toString('utf8', start, end));
  for (const chunk of chunks) ok = ok && splitter.push(Buffer.from(chunk), onLine);
  if (ok) splitter.flush(onLine);
  return { lines, ok };
}

describe('StreamLineSplitter', () => {
  it('splits LF and CRLF lines and keeps empty lines', () => {
    expect(collect(['a\r\n\r\nb\nc']).lines).toEqual(['a', '', 'b', 'c']);
  });

  it('gives the same lines for every split point, including inside CRLF and multi-byte characters', () => {
    const text = 'data: {"t":"héllo 世界"}\r\n\r\ndata: [DONE]\n\n';
    const bytes = Buffer.from(text);
    const expected = collect([text]).lines;
    for (let i = 0; i <= bytes.length; i++) {
      const splitter = new StreamLineSplitter(1024);
      const lines: string[] = [];
      const onLine = (b: Buffer, s: number, e: number) => lines.push(b.toString('utf8', s, e));
      splitter.push(bytes.subarray(0, i), onLine);
      splitter.push(bytes.subarray(i), onLine);
      splitter.flush(onLine);
      expect(lines).toEqual(expected);
    }
  });

  it('joins a line that arrives one byte at a time', () => {
    expect(collect([...'data: 123456\n']).lines).toEqual(['data: 123456']);
  });

  it('refuses a line longer than the limit, whole or buffered', () => {
    expect(collect(['x'.repeat(11) + '\n'], 10).ok).toBe(false);
    expect(collect(['xxxxxx', 'xxxxxx'], 10).ok).toBe(false);
    expect(collect(['xxxxx', 'xxxxx\n'], 10)).toEqual({ lines: ['xxxxxxxxxx'], ok: true });
  });

  it('copies the tail so the caller may reuse its chunk buffer', () => {
    const splitter = new StreamLineSplitter(64);
    const lines: string[] = [];
    const onLine = (b: Buffer, s: number, e: number) => lines.push(b.toString('utf8', s, e));
    const chunk = Buffer.from('abc');
    splitter.push(chunk, onLine);
    chunk.fill(0x7a);
    splitter.push(Buffer.from('d\n'), onLine);
    expect(lines).toEqual(['abcd']);
  });
});
