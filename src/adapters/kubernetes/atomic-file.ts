/**
 * Writes a file of the Kubernetes components (the device plugin's and the DRA driver's CDI specs,
 * the DRA driver's checkpoint) so that a reader sees the old content or the new, never a part:
 * the text goes to a hidden temporary file in the same directory (`.<name>.<pid>.<random>.tmp`, a
 * name CDI runtimes and the checkpoint reader ignore), is flushed to disk (fsync), renamed over
 * the target, and the directory is flushed so the rename survives a crash. The server's own files
 * take the same steps through src/adapters/store/atomic-file.ts (adapters do not import each other).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** True for a name {@link writeFileAtomic} uses for its temporary files. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/**
 * Writes `text` to `path` atomically (creating its directory with `directoryMode` when missing).
 * @throws the file system's error; the temporary file is removed
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { fileMode: number; directoryMode: number },
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: options.directoryMode });
  const temporary = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const file = await open(temporary, 'wx', options.fileMode);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const directory = await open(dir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * Removes the temporary files a crashed writer of `path` left in its directory.
 * @returns how many were removed
 */
export async function removeLeftoverTemporaries(path: string): Promise<number> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const leftovers = names.filter((n) => n.startsWith(prefix) && isTemporaryName(n));
  for (const name of leftovers) await rm(join(dir, name), { force: true });
  return leftovers.length;
}
