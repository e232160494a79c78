/**
 * Test helpers for the stand-in nvidia-smi (not built into dist): a compiled copy of its entry
 * (`simulated-nvidia-smi-cli.js` and every module it imports, transpiled from src/ once per test
 * process, so tests never depend on a stale dist/), temp state files, and a shell wrapper named
 * `nvidia-smi` that execs the entry.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { writeSimulatedNvidiaSmiState, type SimulatedSmiState } from '../simulated-nvidia-smi.js';

const SRC_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ENTRY = join(SRC_DIR, 'adapters/gpu/simulated-nvidia-smi-cli.ts');
const RELATIVE_IMPORT = /(?:from|import)\s+'(\.{1,2}\/[^']+)\.js'/g;

let compiledDir: string | null = null;
const temporaryDirectories: string[] = [];

/**
 * Transpiles the stand-in entry and its relative imports (transitively) into a temporary
 * directory with the same layout as src/, once per test process; returns the compiled entry's path.
 * Throws when a module imports a package (the copy has no node_modules; `node:` built-ins are fine).
 */
export function compiledStandInCli(): string {
  if (compiledDir === null) {
    const out = mkdtempSync(join(tmpdir(), 'gpushare-stand-in-'));
    writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
    const pending = [ENTRY];
    const done = new Set<string>();
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (done.has(file)) continue;
      done.add(file);
      const source = readFileSync(file, 'utf8');
      const bare = /from\s+'(?!node:|\.)([^']+)'/.exec(source);
      if (bare) throw new Error(`${relative(SRC_DIR, file)} imports package "${bare[1]}": the stand-in must use node: built-ins only`);
      for (const m of source.matchAll(RELATIVE_IMPORT)) pending.push(resolve(dirname(file), `${m[1]}.ts`));
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 }, fileName: file,
      });
      const target = join(out, relative(SRC_DIR, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }
    compiledDir = out;
  }
  const cli = join(compiledDir, 'adapters/gpu/simulated-nvidia-smi-cli.js');
  if (!existsSync(cli)) throw new Error(`compiled stand-in entry missing: ${cli}`);
  return cli;
}

/** A fresh temp directory (removed by {@link removeStandInFiles}). */
export function standInDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-fake-smi-'));
  temporaryDirectories.push(dir);
  return dir;
}

/** Writes `state` to `<dir>/state.json` and returns the path. */
export function writeStateFile(dir: string, state: SimulatedSmiState): string {
  const file = join(dir, 'state.json');
  writeSimulatedNvidiaSmiState(file, state);
  return file;
}

/** Writes `<dir>/nvidia-smi`, a shell wrapper that runs the compiled stand-in on `stateFile`; returns its path. */
export function writeNvidiaSmiWrapper(dir: string, stateFile: string): string {
  const path = join(dir, 'nvidia-smi');
  const q = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  writeFileSync(path, `#!/bin/sh\nexec ${q(process.execPath)} ${q(compiledStandInCli())} --state ${q(stateFile)} -- "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** Removes the temp directories and the compiled copy made by this test process. */
export function removeStandInFiles(): void {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (compiledDir !== null) rmSync(compiledDir, { recursive: true, force: true });
  compiledDir = null;
}
