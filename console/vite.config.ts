import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The config is run from the repository root (`vite build --config console/vite.config.ts`),
// so every path is anchored to this file rather than to the working directory.
const consoleDir = dirname(fileURLToPath(import.meta.url));
const apiTarget = process.env.TOLLGATE_API_URL ?? 'http://127.0.0.1:3000';
const proxied = { target: apiTarget, changeOrigin: false };

export default defineConfig({
  root: consoleDir,
  base: '/',
  publicDir: resolve(consoleDir, 'public'),
  plugins: [react()],
  build: {
    outDir: resolve(consoleDir, 'dist'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: { '/api': proxied, '/v1': proxied, '/pg': proxied },
  },
  preview: {
    host: '127.0.0.1',
    proxy: { '/api': proxied, '/v1': proxied, '/pg': proxied },
  },
});
