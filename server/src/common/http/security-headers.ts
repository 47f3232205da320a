import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * Helmet's headers for every answer Fastify sends (console files and routes, /api, relay routes it serves).
 * The console loads the Turnstile and Telegram login scripts, MUI injects its styles at run time, and the chat and
 * home pages frame operator-configured https URLs; nothing else leaves the origin.
 */
export const SECURITY_HEADERS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'", 'https://challenges.cloudflare.com', 'https://telegram.org'],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'https:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameSrc: ["'self'", 'https:'],
      frameAncestors: ["'self'"],
      formAction: ["'self'"],
    },
  },
  // Turnstile checks the embedding site, so cross-origin requests keep the origin (never the path or query).
  referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  // The Telegram login widget signs in through a popup that must keep its opener.
  crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  // HTTPS is the TLS-terminating proxy's to enforce; a one-year HSTS from here would outlive a plain-HTTP install.
  strictTransportSecurity: false,
};

/** What the relay fast path adds to its answers: a constant header, set once per request. */
export const RELAY_NOSNIFF: readonly [string, string] = ['x-content-type-options', 'nosniff'];
