import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into dist/console and served by the registry at /console (apps/registry/src/console). Assets are
// named by content hash (cached for a year); nothing is inlined as a data: URL, so the strict CSP holds.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    // One chunk of ~520 KB (~160 KB gzipped); the budget that matters, gzipped JavaScript ≤ 300 KB, is bench/console's.
    chunkSizeWarningLimit: 800,
  },
});
