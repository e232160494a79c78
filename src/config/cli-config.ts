/**
 * The user's CLI config: where `gpushare` finds the standalone server, its token and the CA its
 * certificate is checked against. The file is `$XDG_CONFIG_HOME/gpushare/config.yaml`, else
 * `~/.config/gpushare/config.yaml`, a YAML mapping with `url`, `token`, and `ca` (the CA
 * certificate's PEM text, what `gpushare serve` writes) or `caFile` (a path to it, relative to the
 * config file's folder). It holds a secret, so it is written with mode 0600 in a 0700 folder
 * (cli-config-write.ts). A file in the form gpushare writes is read without the yaml package
 * (simple-yaml.ts); any other is parsed with it, loaded then.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseSimpleYaml } from './simple-yaml.js';

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
export async function readCliConfig(env: ConfigEnv = process.env): Promise<CliConfig> {
  const path = cliConfigPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliConfigError(path, `cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  }
  return checkCliConfig(path, parseSimpleYaml(text) ?? (await parseConfigYaml(path, text)));
}

/**
 * `text` of the config file at `path` parsed with the yaml package (parse-yaml.ts, loaded now).
 * @throws CliConfigError when it is not valid YAML
 */
export async function parseConfigYaml(path: string, text: string): Promise<unknown> {
  const parsed = (await import('./parse-yaml.js')).parseYaml(text);
  if ('error' in parsed) throw new CliConfigError(path, `not valid YAML: ${parsed.error}`);
  return parsed.doc;
}

/** The settings of a parsed config file `doc`. @throws CliConfigError as {@link readCliConfig} */
function checkCliConfig(path: string, doc: unknown): CliConfig {
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
