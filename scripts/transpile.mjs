// Compiles src/ to dist/ (`npm run build` runs this, then scripts/bundle.mjs): each TypeScript file
// of tsconfig.build.json becomes one ES module with its source map, in the tree `tsc` would write.
// TypeScript reads the config (which files, the target, the folders); esbuild strips the types file
// by file and checks none (docs/decisions/0047-esbuild-compiles-tsc-checks.md): `npm run typecheck`
// (tsc --noEmit, part of `npm test`) checks them, and tsconfig.json's `isolatedModules` makes tsc
// refuse what a file-by-file compile would get wrong (a re-exported type not marked `type`, a
// `const enum` used from another file).
import { build } from 'esbuild';
import ts from 'typescript';

const file = ts.readConfigFile('tsconfig.build.json', ts.sys.readFile);
if (file.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(file.error.messageText, '\n'));
const { fileNames, options, errors } = ts.parseJsonConfigFileContent(file.config, ts.sys, process.cwd());
if (errors.length > 0)
  throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));

await build({
  entryPoints: fileNames,
  outdir: options.outDir,
  outbase: options.rootDir,
  format: 'esm',
  platform: 'node',
  target: ts.ScriptTarget[options.target].toLowerCase(),
  sourcemap: true,
  logLevel: 'warning',
});
