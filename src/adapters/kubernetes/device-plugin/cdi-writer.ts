/**
 * Writes CDI spec files atomically (../atomic-file.ts): the JSON goes to a hidden
 * temporary file in the same directory (a name the runtime's CDI cache ignores: it reads only
 * `*.json` and `*.yaml`), is flushed, then renamed over the spec file, so a runtime never reads a
 * half-written spec.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-file.js';
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
  const target = join(dir, cdiSpecFileName(slot));
  await writeFileAtomic(target, `${JSON.stringify(spec, null, 2)}\n`, { fileMode: 0o644, directoryMode: 0o755 });
  return target;
}
