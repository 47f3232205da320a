'use strict';
/** Preload: exit normally on SIGTERM so `node --cpu-prof` writes its profile (a killed process writes none). */
process.on('SIGTERM', () => process.exit(0));
