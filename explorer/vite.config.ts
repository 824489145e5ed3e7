// The explorer's build: a single-page app under explorer/, built into dist/explorer/ and served
// by the service itself (src/http/explorer.ts). JSX through esbuild, for Preact.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/explorer/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    reportCompressedSize: false,
  },
  server: { proxy: { '/rest': 'http://127.0.0.1:8000', '/api': 'http://127.0.0.1:8000', '/py-reports': 'http://127.0.0.1:8000' } },
});
