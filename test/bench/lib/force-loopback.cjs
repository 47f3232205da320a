'use strict';
/**
 * Preload (`node -r`) for Portkey: its Node build calls `serve({ fetch, port })` without a hostname, which listens on
 * every interface. This makes any listen() that names a port but no host bind 127.0.0.1 instead.
 */
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function loopbackListen(...args) {
  const first = args[0];
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    if (first.port !== undefined && !first.host && !first.path) args[0] = { ...first, host: '127.0.0.1' };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (args[1] === undefined || args[1] === null) args[1] = '127.0.0.1';
    else if (typeof args[1] === 'function') args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
