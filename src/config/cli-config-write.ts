/**
 * Writes the user's CLI config file (cli-config.ts): atomically, mode 0600 in a 0700 folder, as
 * YAML that cli-config.ts reads without the yaml package.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { cliConfigPath, CliConfigError, parseConfigYaml, readCliConfig, type ConfigEnv } from './cli-config.js';

/**
 * Writes the CLI config file atomically (a temporary file in the same folder, synced, then renamed
 * over the old one). Creates the folder with mode 0700 when missing; the file ends with mode 0600
 * even when it existed before with a wider mode.
 * @param config - The server's base URL, token, and the PEM of the CA its certificate chains to
 *   (written as `ca`; null or absent: no `ca` key, e.g. a plain-HTTP server).
 * @param env - Environment that locates the file (default: process.env).
 * @returns The path written.
 * @throws CliConfigError naming the file when the folder cannot be created or the file written.
 */
export function writeCliConfig(
  config: { readonly url: string; readonly token: string; readonly ca?: string | null },
  env: ConfigEnv = process.env,
): string {
  const path = cliConfigPath(env);
  writeConfigText(path, stringify({ url: config.url, token: config.token, ...(config.ca ? { ca: config.ca } : {}) }));
  return path;
}

/**
 * Replaces the `token` of the CLI config file, keeping its other keys (url, ca, caFile, and any
 * others), atomically and with mode 0600 as {@link writeCliConfig}; e.g. after `gpushare token
 * rotate` of the CLI's own token.
 * @param token - The new token.
 * @param env - Environment that locates the file (default: process.env).
 * @returns The path written.
 * @throws CliConfigError naming the file when it cannot be read, is not a mapping, or cannot be written.
 */
export async function updateCliConfigToken(token: string, env: ConfigEnv = process.env): Promise<string> {
  const path = cliConfigPath(env);
  await readCliConfig(env); // the same checks as every read
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliConfigError(path, `cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  const doc = await parseConfigYaml(path, text);
  const mapping =
    doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  writeConfigText(path, stringify({ ...mapping, token }));
  return path;
}

/**
 * Writes `text` to `path` atomically (temporary file, fsync, rename), folder 0700, file 0600.
 * @throws CliConfigError */
function writeConfigText(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
    chmodSync(path, 0o600);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The folder itself is unusable; nothing to clean up.
    }
    throw new CliConfigError(path, `cannot write it: ${err instanceof Error ? err.message : String(err)}`);
  }
}
