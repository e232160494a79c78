/**
 * `gpushare token create|list|revoke|rotate`: API tokens. `create` and `rotate` print the secret
 * alone on their last line (the server shows it only once and keeps only its digest). Rotating
 * the token the CLI itself uses from its config file writes the new one there, so the CLI keeps
 * working.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { TokenView } from '../adapters/http-client/api-client.js';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../contract/api.js';
import { updateCliConfigToken } from '../config/cli-config-write.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, resolveConnection, type ConnectionFlags } from './connection.js';
import { formatTextTable } from './text-table.js';
import { escapeControlCharacters } from '../lib/control-characters.js';

interface CreateOptions extends ConnectionFlags {
  tenant?: string;
  role?: 'admin' | 'tenant-admin' | 'member' | 'viewer';
  label?: string;
  expiresIn?: number;
}

interface ListOptions extends ConnectionFlags {
  output: 'table' | 'json';
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses `--expires-in`: a whole number with a unit, `30d`, `12h`, `90m` or `3600s`, into seconds
 * (1 s to 10 years).
 * @throws InvalidArgumentError naming the flag, the value and the allowed forms
 */
export function parseExpiresIn(text: string): number {
  const match = /^([1-9][0-9]{0,9})([smhd])$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_TOKEN_LIFETIME_SECONDS)) {
    throw new InvalidArgumentError(
      `--expires-in '${text}': expected a whole number with a unit s, m, h or d (e.g. 30d, 12h, 3600s), ` +
        `at most 10 years (3650d)`,
    );
  }
  return seconds;
}

/** Control characters, escape codes and bidi controls shown escaped (`\x1b`), so a label cannot forge rows. */
const printable = escapeControlCharacters;

const shortTime = (iso: string | null): string => (iso === null ? '-' : iso.replace(/\.\d{3}Z$/, 'Z'));

/** The `token list` table: ID (`*` marks the caller's own), TENANT, ROLE, LABEL, STATE, CREATED, EXPIRES. */
export function formatTokenTable(tokens: readonly TokenView[]): string {
  if (tokens.length === 0) return 'no tokens';
  return formatTextTable(
    ['ID', 'TENANT', 'ROLE', 'LABEL', 'STATE', 'CREATED', 'EXPIRES'],
    tokens.map((t) => [
      `${t.id}${t.self ? '*' : ''}`,
      t.tenant ?? '-',
      t.role,
      printable(t.label) || '-',
      t.state === 'revoked' ? `revoked ${shortTime(t.revokedAt)}` : t.state,
      shortTime(t.createdAt),
      t.expiresAt === null ? 'never' : shortTime(t.expiresAt),
    ]),
  );
}

function parseTokenId(text: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(text))
    throw new InvalidArgumentError(
      `'${text}' is not a token id; expected a whole number >= 1 (see \`gpushare token list\`)`,
    );
  return Number(text);
}

/**
 * Builds the `token` command group: create, list, revoke, rotate. The actions reject with ApiError
 * (400 naming a field, 403 for a role that may not, 404 for a token the caller cannot see, 409 for
 * rotating a revoked or expired token) or ApiUnreachableError; bad flags exit 2.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createTokenCommand(io: CliIo = processIo()): Command {
  const create = addConnectionOptions(
    new Command('create')
      .description('create an API token (role member unless --role); the token is printed alone on the last line')
      .allowExcessArguments(false)
      .addOption(
        new Option(
          '--tenant <tenant>',
          "the tenant the token acts for (leave out for --role admin; a tenant-admin's own tenant by default)",
        ),
      )
      .addOption(
        new Option('--role <role>', 'what the token may do (docs/security.md)')
          .choices(['member', 'viewer', 'tenant-admin', 'admin'])
          .default('member'),
      )
      .addOption(new Option('--label <label>', 'a note to tell tokens apart (e.g. who has it)'))
      .addOption(
        new Option('--expires-in <duration>', 'lifetime: 30d, 12h, 90m or 3600s (default: never expires)').argParser(
          parseExpiresIn,
        ),
      )
      .action(async (opts: CreateOptions) => {
        const token = await (
          await connect(opts, io)
        ).createToken({
          tenant: opts.tenant,
          role: opts.role,
          label: opts.label,
          expiresInSeconds: opts.expiresIn,
        });
        const tenant = token.tenant === null ? '' : ` for tenant ${token.tenant}`;
        const expiry = token.expiresAt === null ? '' : `, expires ${shortTime(token.expiresAt)}`;
        io.stdout(
          `created ${token.role} token ${token.id}${tenant}` +
            `${token.label ? ` (${printable(token.label)})` : ''}${expiry}; it is shown only this once:\n` +
            `${token.token}\n`,
        );
      }),
  );
  const list = addConnectionOptions(
    new Command('list')
      .description("the tokens you may see (admin: all; tenant-admin: its tenant's; others: their own, marked *)")
      .allowExcessArguments(false)
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
      .action(async (opts: ListOptions) => {
        const tokens = await (await connect(opts, io)).listTokens();
        io.stdout(opts.output === 'json' ? `${JSON.stringify(tokens, null, 2)}\n` : `${formatTokenTable(tokens)}\n`);
      }),
  );
  const revoke = addConnectionOptions(
    new Command('revoke')
      .description('revoke a token: its next request gets 401')
      .argument('<id>', 'token id (see `gpushare token list`)', parseTokenId)
      .allowExcessArguments(false)
      .action(async (id: number, opts: ConnectionFlags) => {
        const token = await (await connect(opts, io)).revokeToken(id);
        io.stdout(
          `token ${token.id}${token.label ? ` (${printable(token.label)})` : ''} revoked at ` +
            `${shortTime(token.revokedAt)}\n`,
        );
      }),
  );
  const rotate = addConnectionOptions(
    new Command('rotate')
      .description('give a token a new secret (printed alone on the last line); the old one gets 401 from now on')
      .argument('<id>', 'token id (see `gpushare token list`)', parseTokenId)
      .allowExcessArguments(false)
      .action(async (id: number, opts: ConnectionFlags) => {
        const { tokenSource } = await resolveConnection(opts, io);
        const token = await (await connect(opts, io)).rotateToken(id);
        let note = '';
        if (token.self) {
          const configPath = tokenSource === 'config' ? await updateCliConfigToken(token.token, io.env) : '';
          note =
            tokenSource === 'config'
              ? `this is the token this CLI uses: ${configPath} now holds the new one\n`
              : `this is the token this CLI uses: update ` +
                `${tokenSource === 'env' ? 'GPUSHARE_TOKEN' : '--token'} with the new one\n`;
        }
        io.stdout(
          `rotated token ${token.id}${token.label ? ` (${printable(token.label)})` : ''}; the old secret ` +
            `no longer works. ${note === '' ? '' : note}The new one is shown only this once:\n` +
            `${token.token}\n`,
        );
      }),
  );
  return new Command('token')
    .description('manage API tokens: create, list, revoke, rotate')
    .addCommand(create)
    .addCommand(list)
    .addCommand(revoke)
    .addCommand(rotate);
}
