// Bundles the two entry points that start often and must start fast (`npm run build` runs this
// after tsc): the gpushare CLI (dist/main/gpushare.js: client commands and their dependencies in
// one file; the server-side commands stay in dist/main/server-commands.js, loaded only when they
// run) and the stand-in nvidia-smi (dist/adapters/gpu/simulated-nvidia-smi.bundle.js).
import { build } from 'esbuild';

// Bundled CommonJS dependencies (commander) call require() for Node built-ins.
const banner = {
  js:
    "import { createRequire as __gpushareCreateRequire } from 'node:module'; const require = " +
    '__gpushareCreateRequire(import.meta.url);',
};
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner,
  logLevel: 'warning',
  legalComments: 'none',
};

// src/main/cli.ts imports ./server-commands.js through a variable, which esbuild leaves as a
// run-time import: it resolves to the compiled dist/main/server-commands.js beside the bundle.
await build({ ...common, entryPoints: ['src/main/cli.ts'], outfile: 'dist/main/gpushare.js' });
await build({
  ...common,
  entryPoints: ['src/adapters/gpu/simulated-nvidia-smi-cli.ts'],
  outfile: 'dist/adapters/gpu/simulated-nvidia-smi.bundle.js',
});
