import { FormData, Response } from 'undici';
import { encodeMultipart } from '../../upstreams/shared/encode-multipart';
import { formField, MultipartError, multipartBoundary, parseMultipart } from './parse-multipart';

/** What a real client (undici's FormData, as fetch and the openai SDK send it) puts on the wire. */
async function wire(entries: Array<[string, string] | [string, Buffer, string, string]>): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const entry of entries) {
    if (entry.length === 2) form.append(entry[0], entry[1]);
    else form.append(entry[0], new Blob([entry[1]], { type: entry[3] }), entry[2]);
  }
  const response = new Response(form);
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type')! };
}

describe('multipartBoundary', () => {
  it('reads the boundary of multipart/form-data, quoted or not, and nothing else', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(multipartBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('application/json')).toBeNull();
    expect(multipartBoundary('multipart/form-data')).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
    expect(multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`)).toBeNull();
  });
});

describe('parseMultipart', () => {
  it('reads what fetch sends: fields in order and a binary file byte for byte', async () => {
    const audio = Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0xc3, 0x28, 0x0d, 0x0a]);
    const { body, contentType } = await wire([
      ['model', 'whisper-1'],
      ['file', audio, 'speech.mp3', 'audio/mpeg'],
      ['response_format', 'text'],
      ['prompt', 'ünïcödé "quoted"\r\nsecond line'],
    ]);
    const form = parseMultipart(body, multipartBoundary(contentType)!);
    expect(form.fields).toEqual([
      ['model', 'whisper-1'],
      ['response_format', 'text'],
      ['prompt', 'ünïcödé "quoted"\r\nsecond line'],
    ]);
    expect(form.files).toHaveLength(1);
    expect(form.files[0]).toMatchObject({ field: 'file', filename: 'speech.mp3', contentType: 'audio/mpeg' });
    expect(Buffer.from(form.files[0].data).equals(audio)).toBe(true);
    expect(formField(form, 'model')).toBe('whisper-1');
    expect(formField(form, 'language')).toBeUndefined();
  });

  it('round-trips through the upstream encoder, and the re-encoded body is what a standard parser reads', async () => {
    const { body, contentType } = await wire([
      ['model', 'alias'],
      ['language', 'de'],
      ['file', Buffer.from('RIFF....WAVE'), 'a.wav', 'audio/wav'],
    ]);
    const form = parseMultipart(body, multipartBoundary(contentType)!);
    const encoded = encodeMultipart(form, { model: 'whisper-1' }, 'tollgate-test');
    const reread = await new Response(encoded.body, { headers: { 'content-type': encoded.contentType } }).formData();
    expect(reread.get('model')).toBe('whisper-1');
    expect(reread.get('language')).toBe('de');
    const file = reread.get('file') as File;
    expect(file.name).toBe('a.wav');
    expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('RIFF....WAVE');
  });

  it('accepts a preamble, an epilogue, transport padding and RFC 5987 file names', () => {
    const body = Buffer.from(
      'preamble\r\n--b  \r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n' +
        '--b\r\nContent-Disposition: form-data; name=file; filename="x.mp3"; filename*=UTF-8\'\'%E2%82%AC.mp3\r\n\r\nDATA\r\n--b--\r\nepilogue',
    );
    const form = parseMultipart(body, 'b');
    expect(form.fields).toEqual([['model', 'whisper-1']]);
    expect(form.files[0]).toMatchObject({ field: 'file', filename: '€.mp3', contentType: '' });
    expect(Buffer.from(form.files[0].data).toString()).toBe('DATA');
  });

  it('refuses bodies that are not complete multipart messages', () => {
    const bad = [
      '',
      'not multipart at all',
      '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1', // no closing delimiter
      '--b\r\nContent-Disposition: form-data; name="model"\r\nwhisper-1\r\n--b--', // no blank line
      '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--', // no disposition
      '--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--', // no name
      '--bogus\r\n',
    ];
    for (const text of bad) expect(() => parseMultipart(Buffer.from(text), 'b')).toThrow(MultipartError);
  });

  it('parses a 20 MB upload without copying it', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 7);
    const { body, contentType } = await wire([
      ['file', big, 'long.wav', 'audio/wav'],
      ['model', 'whisper-1'],
    ]);
    const started = process.hrtime.bigint();
    const form = parseMultipart(body, multipartBoundary(contentType)!);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(form.files[0].data.byteLength).toBe(big.length);
    expect(form.files[0].data.buffer).toBe(body.buffer);
    expect(formField(form, 'model')).toBe('whisper-1');
    expect(elapsedMs).toBeLessThan(200);
  });
});
