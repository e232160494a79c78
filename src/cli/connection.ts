/**
 * Connection settings of the client commands: `--url`/`--token`/`--ca` flags, then the
 * GPUSHARE_URL / GPUSHARE_TOKEN / GPUSHARE_CA_FILE / GPUSHARE_CA_CERT environment variables, then
 * the user's config file (written by `gpushare serve`: url, token and the CA as `ca`).
 */
import { Command, Option } from 'commander';
import { createApiClient, normalizeBaseUrl, type ApiClient } from '../adapters/http-client/api-client.js';
import { cliConfigPath, readCliConfig } from '../config/cli-config.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './exit-codes.js';
import { caFromConfig, caFromFlagOrEnv, certificateHint, nonEmpty, type ServerCa } from './server-ca.js';

/** The `--url` / `--token` / `--ca` flags as commander parses them. */
export interface ConnectionFlags {
  readonly url?: string;
  readonly token?: string;
  /** A PEM file of the CA the server's certificate must chain to. */
  readonly ca?: string;
}

/** Where the server is, how to authenticate, and which CA its certificate must chain to. */
export interface Connection {
  /** Normalized base URL of the server. */
  readonly url: string;
  /** Bearer token. */
  readonly token: string;
  /** Where the token came from: `--token`, GPUSHARE_TOKEN, or the config file. */
  readonly tokenSource: 'flag' | 'env' | 'config';
  /** The CA for an https URL, null when none is configured (Node's built-in CAs are used then) or the URL is http. */
  readonly ca: ServerCa | null;
  /** What a "certificate not trusted" error adds: the CA's origin, or the key to set. */
  readonly certificateHint: string;
}

/**
 * Adds `--url URL`, `--token TOKEN` and `--ca FILE` to `command`.
 * @returns `command`, for chaining.
 */
export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'server base URL (default: $GPUSHARE_URL, then the config file)'))
    .addOption(new Option('--token <token>', 'API token (default: $GPUSHARE_TOKEN, then the config file)'))
    .addOption(
      new Option(
        '--ca <file>',
        'CA certificate (PEM) of an https server (default: $GPUSHARE_CA_FILE, $GPUSHARE_CA_CERT, then ' +
          'ca/caFile of the config file)',
      ),
    );
}

/**
 * Resolves the connection, each setting on its own: flag, then environment, then config file.
 * The config file is read only when a setting is still missing (the CA only for an https URL).
 * @throws UsageError when no URL or no token is found, the URL is not http(s), or a `--ca` /
 *   GPUSHARE_CA_FILE file is unreadable; CliConfigError when the config file is needed and malformed.
 */
export async function resolveConnection(flags: ConnectionFlags, io: Pick<CliIo, 'env'>): Promise<Connection> {
  let url = nonEmpty(flags.url) ?? nonEmpty(io.env.GPUSHARE_URL);
  let token = nonEmpty(flags.token) ?? nonEmpty(io.env.GPUSHARE_TOKEN);
  const tokenSource = nonEmpty(flags.token) !== undefined ? 'flag' : token !== undefined ? 'env' : 'config';
  let ca = caFromFlagOrEnv(flags.ca, io.env);
  const path = cliConfigPath(io.env);
  const https = (u: string | undefined): boolean => u !== undefined && /^https:/i.test(u);
  if (url === undefined || token === undefined || (ca === null && https(url))) {
    const config = await readCliConfig(io.env);
    url ??= config.url;
    token ??= config.token;
    if (ca === null && https(url)) ca = caFromConfig(config, path);
  }
  if (url === undefined) {
    throw new UsageError(
      `no gpushare server configured: start one with \`gpushare serve\` (it writes ${path}), ` +
        'or set GPUSHARE_URL and GPUSHARE_TOKEN, or pass --url and --token',
    );
  }
  if (token === undefined) {
    throw new UsageError(`no API token for ${url}: pass --token, set GPUSHARE_TOKEN, or put token: in ${path}`);
  }
  let normalized: string;
  try {
    normalized = normalizeBaseUrl(url);
  } catch (err) {
    throw new UsageError(`--url / GPUSHARE_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
  const secure = https(normalized);
  return {
    url: normalized,
    token,
    tokenSource,
    ca: secure ? ca : null,
    certificateHint: certificateHint(secure ? ca : null, path),
  };
}

/**
 * Resolves the connection and creates an API client for it.
 * @throws As {@link resolveConnection}.
 */
export async function connect(flags: ConnectionFlags, io: CliIo): Promise<ApiClient> {
  const { url, token, ca, certificateHint: hint } = await resolveConnection(flags, io);
  return createApiClient({ url, token, fetch: io.fetch, ca: ca?.pem ?? null, certificateHint: hint });
}
