/**
 * File helpers shared by the CLI commands: where the shipped trace lives, and writing output
 * files so that a failed or interrupted run never leaves a half-written one.
 */
import { rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OutputFileError } from './exit-codes.js';

/** Absolute path of `path` (a file or folder) under the shipped data/ (src/cli and dist/cli are two levels down). */
export function shippedDataPath(path: string): string {
  return fileURLToPath(new URL(`../../data/${path}`, import.meta.url));
}

/** Absolute path of a file in the shipped data/alibaba-gpu-v2023/. */
export function shippedTraceFile(name: string): string {
  return shippedDataPath(`alibaba-gpu-v2023/${name}`);
}

/**
 * Fails early, before a long run, when `path` could not be written.
 * @throws OutputFileError naming `flag` when its folder is missing or `path` is a folder
 */
export async function checkOutputPath(flag: string, path: string): Promise<void> {
  const folder = dirname(path);
  const dirStat = await stat(folder).catch(() => null);
  if (!dirStat?.isDirectory()) throw new OutputFileError(flag, path, `folder '${folder}' does not exist`);
  const fileStat = await stat(path).catch(() => null);
  if (fileStat?.isDirectory()) throw new OutputFileError(flag, path, 'it is a folder');
}

/**
 * Writes `text` to `path` atomically: to `path.tmp` first, then renamed over `path`.
 * @throws OutputFileError naming `flag` when writing fails (the temporary file is removed)
 */
export async function writeAtomically(flag: string, path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new OutputFileError(flag, path, err instanceof Error ? err.message : String(err));
  }
}
