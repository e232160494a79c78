/**
 * Test support (not built into dist): bundles a TypeScript entry of src/ into one JavaScript file
 * with esbuild, so that tests run the current source as its own process (the job supervisor, the
 * stand-in nvidia-smi, a launcher in a server about to die) without depending on a stale dist/.
 * Node built-ins and packages stay imports. One bundle per entry and test process.
 */
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

let directory: string | null = null;
const bundles = new Map<string, string>();

/**
 * The bundle of `entry` (an absolute path of a .ts file), made on first use.
 * @returns the path of the bundled `.mjs` file
 * @throws the esbuild error when the entry does not build
 */
export function bundleEntry(entry: string): string {
  let out = bundles.get(entry);
  if (out === undefined) {
    directory ??= mkdtempSync(join(tmpdir(), 'gpushare-bundles-'));
    out = join(directory, `${bundles.size}-${basename(entry).replace(/\.ts$/, '.mjs')}`);
    buildSync({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
    bundles.set(entry, out);
    writeFileSync(join(directory, 'package.json'), '{ "type": "module" }\n');
  }
  return out;
}

/** Removes the bundles made by this test process. */
export function removeBundles(): void {
  if (directory !== null) rmSync(directory, { recursive: true, force: true });
  directory = null;
  bundles.clear();
}
