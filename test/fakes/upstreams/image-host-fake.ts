import { HttpFake } from '../http-fake';

/** A 1×1 transparent PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A plain web server hosting images for clients that send `image_url` parts by URL: `/pixel.png` (image/png),
 * `/pixel.bin` (the same PNG as application/octet-stream), `/note.txt` (text/plain), `/huge.png` (`hugeBytes`
 * of PNG-typed bytes, streamed) and 404 for anything else.
 */
export class ImageHostFake extends HttpFake {
  hugeBytes = 21 * 1024 * 1024;

  constructor() {
    super((request, response) => {
      const path = request.url.split('?')[0];
      if (path === '/pixel.png') {
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(TINY_PNG.length) }).end(TINY_PNG);
      } else if (path === '/pixel.bin') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(TINY_PNG);
      } else if (path === '/note.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('not an image');
      } else if (path === '/huge.png') {
        // No content-length: the size cap must hold while reading, not only on the declared length.
        response.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.alloc(1024 * 1024, 0x42);
        let sent = 0;
        const pump = () => {
          while (sent < this.hugeBytes) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.end();
        };
        response.on('error', () => undefined);
        pump();
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
  }
}
