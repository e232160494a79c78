/**
 * Test helpers for the stand-in nvidia-smi (not built into dist): its entry bundled from the
 * current source (src/testing/bundle-entry.ts, so tests never depend on a stale dist/), temp state
 * files, and a shell wrapper named `nvidia-smi` that execs the entry.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSimulatedNvidiaSmiState, type SimulatedSmiState } from '../simulated-nvidia-smi.js';
import { bundleEntry, removeBundles } from '../../../testing/bundle-entry.js';

const ENTRY = resolve(dirname(fileURLToPath(import.meta.url)), '../simulated-nvidia-smi-cli.ts');
const temporaryDirectories: string[] = [];

/** The stand-in's entry bundled from the current source (src/testing/bundle-entry.ts); returns its path. */
export function compiledStandInCli(): string {
  return bundleEntry(ENTRY);
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
  writeFileSync(
    path,
    `#!/bin/sh\nexec ${q(process.execPath)} ${q(compiledStandInCli())} --state ${q(stateFile)} -- "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Removes the temp directories and the bundles made by this test process. */
export function removeStandInFiles(): void {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
  removeBundles();
}
