// The console's build (scripts/build.mjs runs it into dist/console). Its source shares the server's value
// detection (src/formats/text/values.ts), whose one Node import, isIP, is this folder's shim in the browser.
import { fileURLToPath } from 'node:url'
import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [preact({ prerender: { enabled: false } })],
  resolve: { alias: { 'node:net': fileURLToPath(new URL('./src/shims/node-net.ts', import.meta.url)) } },
  logLevel: 'warn',
  build: {
    // The output folder comes from the command line (--outDir); hashed names are what lets the server cache them immutably.
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // No inline polyfill script: the Content-Security-Policy allows scripts from files of this origin only.
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
})
