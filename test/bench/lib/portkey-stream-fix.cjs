'use strict';
/**
 * Preload (`node -r`) for Portkey 1.15.2 on Node 20: streamed answers fail with `TypeError: immutable` because the
 * headers of a fetch() Response cannot be changed (Portkey issues #1389/#1550). Re-wrap only event-stream responses
 * in a Response whose headers are a fresh, mutable copy (the idea of Portkey PR #1551); JSON answers are untouched.
 */
const upstreamFetch = globalThis.fetch;
globalThis.fetch = async function fetchWithMutableStreamHeaders(...args) {
  const response = await upstreamFetch.apply(this, args);
  if (!(response.headers.get('content-type') || '').startsWith('text/event-stream')) return response;
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
