/**
 * Connection settings of the client commands: `--url`/`--token` flags, then the GPUSHARE_URL /
 * GPUSHARE_TOKEN environment variables, then the user's config file (written by `gpushare serve`).
 */
import { Command, Option } from 'commander';
import { createApiClient, normalizeBaseUrl, type ApiClient } from '../adapters/http-client/api-client.js';
import { cliConfigPath, readCliConfig } from '../config/cli-config.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './exit-codes.js';

/** The `--url` / `--token` flags as commander parses them. */
export interface ConnectionFlags {
  readonly url?: string;
  readonly token?: string;
}

/** Where the server is and how to authenticate. */
export interface Connection {
  /** Normalized base URL of the server. */
  readonly url: string;
  /** Bearer token. */
  readonly token: string;
}

/**
 * Adds `--url URL` and `--token TOKEN` to `command`.
 * @returns `command`, for chaining.
 */
export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'server base URL (default: $GPUSHARE_URL, then the config file)'))
    .addOption(new Option('--token <token>', 'API token (default: $GPUSHARE_TOKEN, then the config file)'));
}

/**
 * Resolves the connection, each setting on its own: flag, then environment, then config file.
 * The config file is read only when a setting is still missing.
 * @throws UsageError when no URL or no token is found, or the URL is not http(s); CliConfigError
 *   when the config file is needed and malformed.
 */
export function resolveConnection(flags: ConnectionFlags, io: Pick<CliIo, 'env'>): Connection {
  let url = nonEmpty(flags.url) ?? nonEmpty(io.env.GPUSHARE_URL);
  let token = nonEmpty(flags.token) ?? nonEmpty(io.env.GPUSHARE_TOKEN);
  if (url === undefined || token === undefined) {
    const config = readCliConfig(io.env);
    url ??= config.url;
    token ??= config.token;
  }
  const path = cliConfigPath(io.env);
  if (url === undefined) {
    throw new UsageError(`no gpushare server configured: start one with \`gpushare serve\` (it writes ${path}), `
      + 'or set GPUSHARE_URL and GPUSHARE_TOKEN, or pass --url and --token');
  }
  if (token === undefined) {
    throw new UsageError(`no API token for ${url}: pass --token, set GPUSHARE_TOKEN, or put token: in ${path}`);
  }
  try {
    return { url: normalizeBaseUrl(url), token };
  } catch (err) {
    throw new UsageError(`--url / GPUSHARE_URL: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Resolves the connection and creates an API client for it.
 * @throws As {@link resolveConnection}.
 */
export function connect(flags: ConnectionFlags, io: CliIo): ApiClient {
  const { url, token } = resolveConnection(flags, io);
  return createApiClient({ url, token, fetch: io.fetch });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
