/**
 * `gpushare audit`: the audit log (docs/security.md "Audit log", docs/cli.md).
 * - `list [--since T] [--limit N] [--tenant T] [-o table|json]`: the newest entries (admin; through the API);
 * - `export [--since T] [--tenant T] [--output FILE]`: every entry as JSON lines (admin; through the API);
 * - `verify [--data-dir D] [--anchor-file F] [-o text|json]`: recomputes the hash chain of the store
 *   file on this machine and checks it against the head journal, the append-only triggers and an
 *   outside copy of the anchor's heads; exit 4 naming every problem (the first bad entry first).
 */
import { writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { AuditEntryView } from '../contract/audit.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { ExitWithCode, OutputFileError } from './exit-codes.js';
import { formatTextTable } from './text-table.js';
import { parseSince } from './option-parsers.js';

/** Exit status of `audit verify` when the log fails verification. */
export const EXIT_AUDIT_TAMPERED = 4;

/** Entries per request of `audit export`. */
const EXPORT_PAGE = 1000;

/** What `audit verify` reports (src/main/audit-verify.ts computes it; docs/security.md "Verifying"). */
export interface AuditVerifyReport {
  readonly ok: boolean;
  readonly entries: number;
  readonly head: { readonly seq: number; readonly hash: string };
  readonly witnessedThroughSeq: number;
  readonly firstBad: { readonly seq: number; readonly problem: string; readonly message: string } | null;
  /** Every problem: a code, the entry (`seq`) or line (`lineNumber`) it concerns, a message. */
  readonly problems: readonly {
    readonly problem: string;
    readonly seq: number | null;
    readonly lineNumber: number | null;
    readonly message: string;
  }[];
  /** The store file and the journal file read. */
  readonly store: string;
  readonly journal: string;
  /** The anchor's copy checked against (`--anchor-file`, absolute); null when none. */
  readonly anchorFile: string | null;
  /** The last head the server handed to its anchor command; null when it never ran one. */
  readonly anchoredSeq: number | null;
  /** Entries after it, not yet handed to the anchor command; null when none (or no anchor command ran). */
  readonly unanchored: { readonly fromSeq: number; readonly toSeq: number } | null;
}

/** Options of `audit verify`. */
export interface AuditVerifyOptions {
  /** `--anchor-file`: a copy of the heads the anchor command received; null: none. */
  readonly anchorFile: string | null;
}

/** Verifies the audit log of a data directory (null: the default one). */
export type VerifyAudit = (dataDir: string | null, options: AuditVerifyOptions) => Promise<AuditVerifyReport>;

/** `text` with control characters shown as `\xNN`, so that a stored value cannot forge terminal output. */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One line per entry: seq, time, actor, tenant, action, target, outcome. */
function formatAuditTable(entries: readonly AuditEntryView[]): string {
  const rows = entries.map((e) =>
    [
      String(e.seq),
      e.at,
      e.actor,
      e.tenant ?? '-',
      e.action,
      e.target,
      e.outcome.result === 'ok'
        ? e.outcome.message
          ? `ok: ${e.outcome.message.slice(0, 80)}`
          : 'ok'
        : (
            `${e.outcome.result} ${e.outcome.httpStatus ?? ''}` +
            `${e.outcome.message ? `: ${e.outcome.message.slice(0, 80)}` : ''}`
          ).trim(),
    ].map(visible),
  );
  return formatTextTable(['SEQ', 'TIME', 'ACTOR', 'TENANT', 'ACTION', 'TARGET', 'OUTCOME'], rows);
}

/** The text `audit verify` prints: one line per problem (the first bad entry first), or the head verified. */
function formatVerifyReport(report: AuditVerifyReport): string {
  const lines: string[] = [];
  if (!report.ok) {
    for (const p of report.problems) {
      const where =
        p.seq !== null && p === report.problems[0] && report.firstBad !== null
          ? `first bad entry ${p.seq} (${p.problem})`
          : p.lineNumber !== null
            ? `${p.problem} at line ${p.lineNumber}`
            : p.problem;
      lines.push(`audit log FAILED verification: ${where}: ${p.message}`);
    }
    lines.push(
      `${report.entries} entries ${report.firstBad === null ? '' : 'before it '}verified (store ${report.store}, ` +
        `journal ${report.journal}${report.anchorFile === null ? '' : `, anchor copy ${report.anchorFile}`})`,
    );
    return `${lines.join('\n')}\n`;
  }
  lines.push(`${report.entries} entries verified, head ${report.head.seq} ${report.head.hash}`);
  if (report.witnessedThroughSeq < report.head.seq) {
    lines.push(
      `entries ${report.witnessedThroughSeq + 1}-${report.head.seq} not yet witnessed by the journal (it ` +
        `is written in batches; not an error)`,
    );
  }
  if (report.anchorFile !== null) lines.push(`every head of the anchor copy ${report.anchorFile} matches the store`);
  if (report.unanchored !== null) {
    lines.push(
      `entries ${report.unanchored.fromSeq}-${report.unanchored.toSeq} not yet handed to the anchor command ` +
        `(the last anchored head is ${report.anchoredSeq})`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface ListOptions extends ConnectionFlags {
  since?: string;
  limit: number;
  tenant?: string;
  output: 'table' | 'json';
}
interface ExportOptions extends ConnectionFlags {
  since?: string;
  tenant?: string;
  output?: string;
}

const parseLimit = (text: string): number => {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > 10_000)
    throw new InvalidArgumentError(`'${text}' is not a limit; expected a whole number from 1 to 10000`);
  return value;
};

/**
 * Builds the `audit` command group. `list` and `export` reject with ApiError (403 for a non-admin
 * token) or ApiUnreachableError; `verify` throws ExitWithCode(4) when the log fails verification,
 * an Error when the store cannot be read.
 * @param verify checks a data directory's audit log on this machine (wired by the composition root)
 */
export function createAuditCommand(verify: VerifyAudit, io: CliIo = processIo()): Command {
  const since = new Option(
    '--since <time>',
    'only entries since an ISO 8601 time or a duration back from now (90s, 30m, 1h, 7d)',
  );
  const list = addConnectionOptions(
    new Command('list')
      .description('the newest audit log entries (admin)')
      .allowExcessArguments(false)
      .addOption(since)
      .addOption(new Option('--limit <n>', 'at most this many entries (1-10000)').argParser(parseLimit).default(50))
      .addOption(new Option('--tenant <tenant>', 'only entries of this tenant'))
      .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
      .action(async (opts: ListOptions) => {
        const entries = await (
          await connect(opts, io)
        ).listAudit({
          newest: true,
          limit: opts.limit,
          ...(opts.since === undefined ? {} : { since: parseSince(opts.since, io.nowMs()) }),
          ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
        });
        io.stdout(opts.output === 'json' ? `${JSON.stringify(entries, null, 2)}\n` : `${formatAuditTable(entries)}\n`);
      }),
  );
  const exportCommand = addConnectionOptions(
    new Command('export')
      .description('every audit log entry as JSON lines, oldest first, with its hashes (admin)')
      .allowExcessArguments(false)
      .addOption(new Option('--since <time>', 'only entries since an ISO 8601 time or a duration back from now'))
      .addOption(new Option('--tenant <tenant>', 'only entries of this tenant'))
      .addOption(new Option('--output <file>', 'write to this file (mode 0600) instead of standard output'))
      .action(async (opts: ExportOptions) => {
        const client = await connect(opts, io);
        const sinceIso = opts.since === undefined ? undefined : parseSince(opts.since, io.nowMs());
        const lines: string[] = [];
        let afterSeq = 0;
        // Bounded: every page moves afterSeq forward, and a short page ends the export.
        for (;;) {
          const page = await client.listAudit({
            afterSeq,
            limit: EXPORT_PAGE,
            ...(sinceIso === undefined ? {} : { since: sinceIso }),
            ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }),
          });
          for (const entry of page) lines.push(`${JSON.stringify(entry)}\n`);
          if (page.length < EXPORT_PAGE || page.at(-1)!.seq <= afterSeq) break;
          afterSeq = page.at(-1)!.seq;
        }
        if (opts.output === undefined) io.stdout(lines.join(''));
        else {
          await writeFile(opts.output, lines.join(''), { mode: 0o600, flag: 'w' }).catch((err: Error) => {
            throw new OutputFileError('--output', opts.output!, err.message);
          });
          io.stderr(`exported ${lines.length} entries to ${opts.output}\n`);
        }
      }),
  );
  const verifyCommand = new Command('verify')
    .description(
      "recompute the audit log's hash chain in the store file on this machine and check it against the " +
        "head journal, the append-only triggers and (--anchor-file) the anchor's copy; exit 4 naming every problem",
    )
    .allowExcessArguments(false)
    .option('--data-dir <dir>', "the server's data directory (default ~/.local/share/gpushare)")
    .option(
      '--anchor-file <file>',
      'also check the store against a copy of the heads the anchor command received (lines ending in "seq hash")',
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (opts: { dataDir?: string; anchorFile?: string; output: 'text' | 'json' }) => {
      const report = await verify(opts.dataDir ?? null, { anchorFile: opts.anchorFile ?? null });
      io.stdout(opts.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report));
      if (!report.ok) throw new ExitWithCode(EXIT_AUDIT_TAMPERED);
    });
  return new Command('audit')
    .description('the audit log: list, export, verify')
    .addCommand(list)
    .addCommand(exportCommand)
    .addCommand(verifyCommand);
}
