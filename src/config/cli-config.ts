/**
 * The user's CLI config: where `gpushare` finds the standalone server, its token and the CA its
 * certificate is checked against. The file is `$XDG_CONFIG_HOME/gpushare/config.yaml`, else
 * `~/.config/gpushare/config.yaml`, a YAML mapping with `url`, `token`, and `ca` (the CA
 * certificate's PEM text, what `gpushare serve` writes) or `caFile` (a path to it, relative to the
 * config file's folder). It holds a secret, so it is written with mode 0600 in a 0700 folder.
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
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

/** Connection settings as stored in the config file; each may be missing. */
export interface CliConfig {
  /** Base URL of the server, e.g. `http://127.0.0.1:7070`. */
  readonly url?: string;
  /** Bearer token for the API. */
  readonly token?: string;
  /** PEM text of the CA certificate the server's certificate must chain to. */
  readonly ca?: string;
  /** Absolute path of a PEM file of that CA certificate (the file's `caFile`, resolved against its folder). */
  readonly caFile?: string;
}

/** How a PEM certificate starts. */
const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/** The config file exists but cannot be read or is not a mapping of `url`, `token`, `ca`, `caFile` strings. */
export class CliConfigError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`config file ${path}: ${reason}`);
    this.name = 'CliConfigError';
  }
}

/** The environment variables the config location depends on. */
export type ConfigEnv = Readonly<Record<string, string | undefined>>;

/**
 * Path of the CLI config file: `$XDG_CONFIG_HOME/gpushare/config.yaml` when XDG_CONFIG_HOME is an
 * absolute path (the XDG spec ignores relative ones), else `$HOME/.config/gpushare/config.yaml`
 * (the OS home folder when HOME is unset).
 * @param env - Environment to read (default: process.env).
 * @returns An absolute path; the file need not exist.
 */
export function cliConfigPath(env: ConfigEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'gpushare', 'config.yaml');
}

/**
 * Reads the CLI config file.
 * @param env - Environment that locates the file (default: process.env).
 * @returns The settings; empty when the file does not exist or is empty. Unknown keys are ignored.
 * @throws CliConfigError naming the file when it cannot be read, is not valid YAML, is not a
 *   mapping, `url`/`token`/`caFile` are not non-empty strings, or `ca` is no PEM certificate.
 */
export function readCliConfig(env: ConfigEnv = process.env): CliConfig {
  const path = cliConfigPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliConfigError(path, `cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new CliConfigError(
      path,
      `not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new CliConfigError(path, 'expected a YAML mapping with keys url and token');
  }
  const record = doc as Record<string, unknown>;
  const config: { url?: string; token?: string; ca?: string; caFile?: string } = {};
  for (const key of ['url', 'token', 'ca', 'caFile'] as const) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value === '') throw new CliConfigError(path, `${key} must be a non-empty string`);
    config[key] = value;
  }
  if (config.ca !== undefined && !config.ca.includes(PEM_CERTIFICATE)) {
    throw new CliConfigError(
      path,
      `ca must be the PEM text of a CA certificate (${PEM_CERTIFICATE} ...); for a file use caFile: PATH`,
    );
  }
  if (config.caFile !== undefined) config.caFile = resolve(dirname(path), config.caFile);
  return config;
}

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
export function updateCliConfigToken(token: string, env: ConfigEnv = process.env): string {
  const path = cliConfigPath(env);
  readCliConfig(env); // the same checks as every read
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliConfigError(path, `cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  const mapping =
    doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  writeConfigText(path, stringify({ ...mapping, token }));
  return path;
}

/**
 * Writes `text` to `path` atomically (temporary file, fsync, rename), folder 0700, file 0600. @throws CliConfigError
 */
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
