// Compiles src/ to dist/ (`npm run build` runs this, then scripts/bundle.mjs): each TypeScript file
// of tsconfig.build.json's set becomes one ES module with its source map, the same tree as `tsc`
// would write. esbuild strips the types file by file and checks none
// (docs/decisions/0047-esbuild-compiles-tsc-checks.md): `npm run typecheck` (tsc --noEmit, part of
// `npm test`) checks them, and tsconfig.json's
// `isolatedModules` makes tsc refuse what a file-by-file compile would get wrong (a re-exported
// type not marked `type`, a `const enum` used from another file).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const config = JSON.parse(readFileSync('tsconfig.build.json', 'utf8'));
const { target } = JSON.parse(readFileSync('tsconfig.json', 'utf8')).compilerOptions;

// A tsconfig glob (`src/**/*.ts`, `src/**/testing/**`) as a test on a path relative to the repository.
const globTest = (pattern) =>
  new RegExp(
    `^${pattern
      .split(/(\*\*\/|\*\*|\*)/)
      .map((part) =>
        part === '**/'
          ? '(?:.*/)?'
          : part === '**'
            ? '.*'
            : part === '*'
              ? '[^/]*'
              : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('')}$`,
  );
const included = config.include.map(globTest);
const excluded = config.exclude.map(globTest);
const entryPoints = readdirSync('src', { recursive: true })
  .map((file) => join('src', file))
  .filter((file) => included.some((test) => test.test(file)) && !excluded.some((test) => test.test(file)));

await build({
  entryPoints,
  outdir: 'dist',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: target.toLowerCase(),
  sourcemap: true,
  logLevel: 'warning',
});
