/**
 * The CA certificate a client command checks an https server's certificate against, and where it
 * came from: `--ca FILE`, then `GPUSHARE_CA_FILE` (a path), then `GPUSHARE_CA_CERT` (PEM text,
 * what gpushare sets for jobs), then the CLI config's `ca` (PEM text) or `caFile` (a path).
 */
import { readFileSync } from 'node:fs';
import { CliConfigError, type CliConfig } from '../config/cli-config.js';
import { UsageError } from './exit-codes.js';

/** A CA certificate (PEM) and a description of its origin for messages, e.g. `--ca /tmp/ca.crt`. */
export interface ServerCa {
  readonly pem: string;
  readonly source: string;
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/**
 * The CA from the `--ca` flag or the environment, or null when none is given there.
 * @throws UsageError naming the flag or variable when the file cannot be read or holds no PEM certificate
 */
export function caFromFlagOrEnv(
  flagFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ServerCa | null {
  const file = nonEmpty(flagFile);
  if (file !== undefined)
    return { pem: readCaFile(file, (reason) => new UsageError(`--ca: ${reason}`)), source: `--ca ${file}` };
  const envFile = nonEmpty(env.GPUSHARE_CA_FILE);
  if (envFile !== undefined)
    return {
      pem: readCaFile(envFile, (reason) => new UsageError(`GPUSHARE_CA_FILE: ${reason}`)),
      source: `GPUSHARE_CA_FILE (${envFile})`,
    };
  const pem = env.GPUSHARE_CA_CERT;
  if (pem === undefined || pem.trim() === '') return null;
  if (!pem.includes(PEM_CERTIFICATE))
    throw new UsageError(`GPUSHARE_CA_CERT: expected the PEM text of a CA certificate (${PEM_CERTIFICATE} ...)`);
  return { pem, source: 'GPUSHARE_CA_CERT' };
}

/**
 * The CA of the CLI config file at `path`, or null when it has neither `ca` nor `caFile`.
 * @throws CliConfigError naming `caFile` when that file cannot be read or holds no PEM certificate
 */
export function caFromConfig(config: CliConfig, path: string): ServerCa | null {
  if (config.ca !== undefined) return { pem: config.ca, source: `ca in ${path}` };
  if (config.caFile === undefined) return null;
  return {
    pem: readCaFile(config.caFile, (reason) => new CliConfigError(path, `caFile: ${reason}`)),
    source: `caFile ${config.caFile} in ${path}`,
  };
}

/**
 * What to add to a "certificate not trusted" error: which CA was used, or that none was and which
 * config key, flag or variable sets one.
 */
export function certificateHint(ca: ServerCa | null, configPath: string): string {
  if (ca === null) {
    return (
      `no CA is configured for this https server: set ca: (the CA certificate's PEM text; \`gpushare ` +
      `serve\` writes it) or caFile: (its path) in ${configPath}, ` +
      'or pass --ca FILE or set GPUSHARE_CA_FILE'
    );
  }
  return (
    `it was checked against the CA from ${ca.source}; if that is not this server's CA, point ca: or caFile: ` +
    `in ${configPath}, --ca or GPUSHARE_CA_FILE at the right one`
  );
}

function readCaFile(path: string, fail: (reason: string) => Error): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw fail(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!text.includes(PEM_CERTIFICATE)) throw fail(`${path} holds no PEM certificate (${PEM_CERTIFICATE} ...)`);
  return text;
}

/** `value` trimmed, or undefined when it is absent or blank (a flag or environment variable left empty). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
