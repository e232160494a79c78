// Bundles the entry points that start often and must start fast (`npm run build` runs this after
// scripts/transpile.mjs): the gpushare CLI, the stand-in nvidia-smi
// (dist/adapters/gpu/simulated-nvidia-smi.bundle.js) and the server (dist/main/serve.cjs).
//
// The CLI is cut where its code imports on demand (docs/cli.md, "What a command loads";
// docs/decisions/0023-cli-start-cost.md, 0024-cli-commonjs-code-cache.md): dist/main/gpushare.cjs
// holds what every command runs first (src/main/cli.ts: the command table, errors, exit codes);
// each module the code loads with `import()` (each client command, the zod schemas of answers, the
// yaml parser) is one file in dist/main/gpushare-chunks/ holding everything it imports (required
// when the import runs), except commander, which is a file of its own that they all share. So
// `gpushare jobs` loads three files (and the code cache's hook, dist/main/code-cache.cjs). The
// files are CommonJS, so that the chunks can go through the V8 code cache (src/main/code-cache.ts).
// The server-side commands stay in dist/main/server-commands.js (scripts/transpile.mjs's output, ES modules),
// imported only when they run; `serve` then requires the server's own bundle, dist/main/serve.cjs.
// dist/main/gpushare.meta.json is esbuild's metafile of them all: which sources each file holds
// (test/e2e/cli-loads.test.ts reads it).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { build } from 'esbuild';

const OUT_DIR = 'dist/main';
const CHUNK_DIR = join(OUT_DIR, 'gpushare-chunks');

// The CLI's files are CommonJS (.cjs): Node loads them without its ESM loader, and
// src/main/code-cache.ts can keep their compiled code. `import.meta.url` is the file's own URL.
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  banner: { js: "const __gpushareImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__gpushareImportMetaUrl' },
  logLevel: 'warning',
  legalComments: 'none',
};

/** The layers whose modules only define values (no I/O, nothing registered on import): see {@link cliPlugin}. */
const PURE_LAYER = /[\\/]src[\\/](core|lib|contract)[\\/]/;
/** Packages every command uses: each one file of its own (re-exporting `names`), shared, never copied. */
const SHARED_PACKAGES = {
  commander: [
    'Argument',
    'Command',
    'CommanderError',
    'Help',
    'InvalidArgumentError',
    'InvalidOptionArgumentError',
    'Option',
    'createArgument',
    'createCommand',
    'createOption',
    'program',
  ],
};

/**
 * Built-ins a shared package requires at load but uses only in features gpushare does not use: they
 * are replaced in its chunk by a stand-in that loads the module on first use (commander spawns a
 * process only for executable subcommands; node:child_process costs about 2 ms to load).
 */
const LAZY_BUILT_INS = { commander: ['node:child_process'] };

/** The files to build in dist/main/gpushare-chunks/, by name: a source file, or a shared package. */
const chunks = new Map();
/** The source file or package of each chunk name, so that two sources never share a name. */
const chunkSources = new Map();

/** The chunk `source` is built into (found now, built in a later round): its name. */
function chunkFor(source, name) {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    const known = chunkSources.get(candidate);
    if (known === undefined) {
      chunkSources.set(candidate, source);
      chunks.set(candidate, { source, built: false });
      return candidate;
    }
    if (known === source) return candidate;
  }
}

/**
 * The CLI's esbuild plugin, for a build whose files are written to `outDir` (of the shared package
 * `ownPackage`, which it bundles):
 * - a module imported with `import()` is left out and imported from its own chunk at run time;
 * - a shared package (commander) is imported from its chunk;
 * - the modules of src/core, src/lib and src/contract are marked free of side effects, so that one
 *   none of whose exports is used is left out (the core's index re-exports the whole scheduler;
 *   the CLI uses a few of its names). The dependency rules keep those layers pure (.dependency-cruiser.cjs).
 */
function cliPlugin(outDir, ownPackage = null) {
  const pathFromOut = (name) => {
    const path = relative(outDir, join(CHUNK_DIR, `${name}.cjs`));
    return path.startsWith('.') ? path : `./${path}`;
  };
  return {
    name: 'gpushare-cli',
    setup(plugin) {
      plugin.onResolve({ filter: /.*/ }, async (args) => {
        const lazy = ownPackage !== null && LAZY_BUILT_INS[ownPackage]?.includes(args.path);
        if (lazy && args.kind === 'require-call' && args.namespace !== 'lazy-built-in')
          return { path: args.path, namespace: 'lazy-built-in' };
        // What a dynamic import became (below) requires at run time.
        if (args.namespace === 'run-time-require') return { path: args.path, external: true };
        // import('node:https') is require('node:https') when the code runs (vm.Script has no import()).
        if (args.path.startsWith('node:') && args.kind === 'dynamic-import')
          return { path: args.path, namespace: 'run-time-require' };
        if (args.pluginData === 'gpushare-cli' || args.path.startsWith('node:') || args.kind === 'entry-point')
          return undefined;
        if (Object.hasOwn(SHARED_PACKAGES, args.path) && args.path !== ownPackage)
          return { path: pathFromOut(chunkFor(`package:${args.path}`, args.path)), external: true };
        const resolved = await plugin.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'gpushare-cli',
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external) return { path: resolved.path, external: true };
        if (args.kind === 'dynamic-import') {
          const name = basename(resolved.path).replace(/\.[cm]?[jt]s$/, '');
          return { path: pathFromOut(chunkFor(resolved.path, name)), namespace: 'run-time-require' };
        }
        return PURE_LAYER.test(resolved.path) ? { path: resolved.path, sideEffects: false } : { path: resolved.path };
      });
      // A module imported with import(): required when the import runs (the chunk's file, or a built-in).
      plugin.onLoad({ filter: /.*/, namespace: 'run-time-require' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});\n`,
        loader: 'js',
      }));
      // The stand-in of a lazily loaded built-in: each property read loads the module (once; Node caches it).
      plugin.onLoad({ filter: /.*/, namespace: 'lazy-built-in' }, (args) => ({
        contents:
          `module.exports = new Proxy({}, { get: (_, name) => require(${JSON.stringify(args.path)})[name] ` + `});\n`,
        loader: 'js',
      }));
    },
  };
}

/** A shared package's chunk: its `names`, re-exported. */
const sharedPackageEntry = (pkg) => ({
  contents: `export { ${SHARED_PACKAGES[pkg].join(', ')} } from '${pkg}';\n`,
  resolveDir: process.cwd(),
  sourcefile: `${pkg}.js`,
  loader: 'js',
});

// Chunks are rebuilt from scratch: one no longer imported must not linger (nor the ES module
// bundle of earlier builds).
rmSync(CHUNK_DIR, { recursive: true, force: true });
rmSync(join(OUT_DIR, 'gpushare.js'), { force: true });
mkdirSync(CHUNK_DIR, { recursive: true });
const metafile = { inputs: {}, outputs: {} };
const merge = (result) => {
  Object.assign(metafile.inputs, result.metafile.inputs);
  Object.assign(metafile.outputs, result.metafile.outputs);
};
// src/main/cli.ts imports ./server-commands.js and ./audit-verify.js through a variable, which
// esbuild leaves as a run-time import: it resolves to the compiled module beside dist/main/gpushare.cjs.
merge(
  await build({
    ...common,
    entryPoints: ['src/main/cli.ts'],
    outfile: join(OUT_DIR, 'gpushare.cjs'),
    metafile: true,
    plugins: [cliPlugin(OUT_DIR)],
  }),
);
// Each chunk may find more (a command's lazily loaded parts): build until none is left.
for (let round = 1; [...chunks.values()].some((c) => !c.built); round++) {
  if (round > 10) throw new Error('bundle: chunks keep importing new chunks');
  for (const [name, chunk] of chunks) {
    if (chunk.built) continue;
    chunk.built = true;
    const pkg = chunk.source.startsWith('package:') ? chunk.source.slice('package:'.length) : null;
    merge(
      await build({
        ...common,
        ...(pkg === null ? { entryPoints: [chunk.source] } : { stdin: sharedPackageEntry(pkg) }),
        outfile: join(CHUNK_DIR, `${name}.cjs`),
        metafile: true,
        plugins: [cliPlugin(CHUNK_DIR, pkg)],
      }),
    );
  }
}
// The code cache's hook, loaded by bin/gpushare before the CLI.
merge(
  await build({
    ...common,
    entryPoints: ['src/main/code-cache.ts'],
    outfile: join(OUT_DIR, 'code-cache.cjs'),
    metafile: true,
  }),
);
// The chunks are compiled through the code cache (vm.Script), which cannot run import().
for (const name of chunks.keys()) {
  const text = readFileSync(join(CHUNK_DIR, `${name}.cjs`), 'utf8');
  if (/\bimport\(/.test(text)) throw new Error(`bundle: ${name}.cjs holds an import() (the code cache cannot run it)`);
}
writeFileSync(join(OUT_DIR, 'gpushare.meta.json'), `${JSON.stringify(metafile, null, 1)}\n`);

// The stand-in nvidia-smi stays an ES module (.js); bundled CommonJS calls require() for built-ins.
await build({
  ...common,
  format: 'esm',
  banner: {
    js:
      "import { createRequire as __gpushareCreateRequire } from 'node:module'; const require = " +
      '__gpushareCreateRequire(import.meta.url);',
  },
  define: {},
  entryPoints: ['src/adapters/gpu/simulated-nvidia-smi-cli.ts'],
  outfile: 'dist/adapters/gpu/simulated-nvidia-smi.bundle.js',
});

/**
 * An esbuild plugin for a bundle written to `outDir`: in each source file of src/, `import.meta.url`
 * becomes the URL of that file's compiled module in dist/ (scripts/transpile.mjs), so that what the
 * code finds beside itself (the supervisor, the stand-in nvidia-smi, web/, package.json) is where
 * it was before bundling.
 */
function compiledModuleUrl(outDir) {
  return {
    name: 'gpushare-compiled-module-url',
    setup(plugin) {
      plugin.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        const compiled = join('dist', relative('src', relative(process.cwd(), args.path))).replace(/\.ts$/, '.js');
        const fromOut = JSON.stringify(relative(outDir, compiled));
        const url = `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${fromOut})).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

// The server (`gpushare serve`, src/main/serve.ts) with the packages it imports, in one CommonJS
// file that src/main/server-commands.ts requires: Node reads one file instead of resolving and
// loading about 1,300 modules (a start to "listening" took 0.68 s, 0.46-0.49 s bundled; docs/cli.md).
// better-sqlite3 stays outside (its native addon is found beside its own files).
await build({
  ...common,
  banner: {},
  define: {},
  entryPoints: ['src/main/serve.ts'],
  outfile: join(OUT_DIR, 'serve.cjs'),
  external: ['better-sqlite3'],
  plugins: [compiledModuleUrl(OUT_DIR)],
});
