import type { MultipartForm } from '../upstream-adapter';

/** Quotes and line breaks in names are percent-encoded, as browsers do (WHATWG multipart/form-data). */
function escapeName(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Re-encodes a parsed multipart form with every field and file, replacing the fields in `replace` (the
 * mapped model). new-api forwarded only `model` and `file`, losing language, prompt,
 * response_format and temperature.
 */
export function encodeMultipart(
  form: MultipartForm,
  replace: Readonly<Record<string, string>>,
  boundary: string,
): { body: Buffer; contentType: string } {
  const parts: Buffer[] = [];
  const seen = new Set<string>();
  const field = (name: string, value: string) =>
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${value}\r\n`));
  for (const [name, value] of form.fields) {
    if (Object.hasOwn(replace, name)) {
      if (seen.has(name)) continue;
      seen.add(name);
      field(name, replace[name]);
    } else field(name, value);
  }
  for (const [name, value] of Object.entries(replace)) if (!seen.has(name)) field(name, value);
  for (const file of form.files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(file.field)}"; filename="${escapeName(file.filename)}"\r\n` +
          `Content-Type: ${file.contentType || 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
