/**
 * Writes CDI spec files atomically: the JSON goes to a hidden temporary file in the same directory
 * (a name the runtime's CDI cache ignores: it reads only `*.json` and `*.yaml`), is flushed, then
 * renamed over the spec file, so a runtime never reads a half-written spec.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CdiSpec } from './cdi-spec.js';

/** The CDI spec directory runtimes read by default. */
export const DEFAULT_CDI_DIR = '/var/run/cdi';

/** File name of a slot's spec in the CDI directory: `gpushare.io-gpu_<slot>.json`. */
export function cdiSpecFileName(slot: string): string {
  return `gpushare.io-gpu_${slot}.json`;
}

/**
 * Writes `spec` as `<dir>/<cdiSpecFileName(slot)>` (creating `dir` with mode 0755 when missing),
 * replacing any earlier spec of that slot in one rename.
 * @returns the path written
 * @throws the file system's error (the temporary file is removed)
 */
export async function writeCdiSpec(dir: string, slot: string, spec: CdiSpec): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const target = join(dir, cdiSpecFileName(slot));
  const temporary = join(dir, `.${cdiSpecFileName(slot)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const file = await open(temporary, 'wx', 0o644);
    try {
      await file.writeFile(`${JSON.stringify(spec, null, 2)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return target;
}
