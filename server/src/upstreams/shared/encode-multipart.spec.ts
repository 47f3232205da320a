import { encodeMultipart } from './encode-multipart';

describe('encodeMultipart', () => {
  it('forwards every field and file and replaces the model', async () => {
    const audio = Buffer.from([0x49, 0x44, 0x33, 0x00, 0xff]);
    const { body, contentType } = encodeMultipart(
      {
        fields: [
          ['model', 'whisper-1'],
          ['language', 'de'],
          ['response_format', 'verbose_json'],
          ['temperature', '0'],
        ],
        files: [{ field: 'file', filename: 'a "b".mp3', contentType: 'audio/mpeg', data: audio }],
      },
      { model: 'whisper-large' },
      'tollgateBoundary1',
    );
    expect(contentType).toBe('multipart/form-data; boundary=tollgateBoundary1');
    // Read back with the platform's own multipart parser.
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    expect(form.get('model')).toBe('whisper-large');
    expect(form.get('language')).toBe('de');
    expect(form.get('response_format')).toBe('verbose_json');
    expect(form.get('temperature')).toBe('0');
    const file = form.get('file') as File;
    // The quotes travel percent-encoded and come back intact.
    expect(body.toString('latin1')).toContain('filename="a %22b%22.mp3"');
    expect(file.name).toBe('a "b".mp3');
    expect(file.type).toBe('audio/mpeg');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(audio);
  });

  it('adds a replaced field the client did not send', async () => {
    const { body, contentType } = encodeMultipart({ fields: [], files: [] }, { model: 'm' }, 'b');
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    expect(form.get('model')).toBe('m');
  });
});
