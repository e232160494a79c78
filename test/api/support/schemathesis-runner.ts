/**
 * Runs the Schemathesis CLI (installed by scripts/install-schemathesis.sh) against a server's
 * OpenAPI document and reads its NDJSON event report into what each operation answered: the
 * statuses per operation (`METHOD /path/{template}`) and every failed check with the request
 * that showed it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const REQUIREMENTS = join(import.meta.dirname, '..', '..', '..', 'scripts', 'schemathesis', 'requirements.txt');
/** Settings the command line has no flag for (test/api/schemathesis.toml). */
const CONFIG_FILE = join(import.meta.dirname, '..', 'schemathesis.toml');

/** The Schemathesis version the repository pins (scripts/schemathesis/requirements.txt), e.g. `4.32.5`. */
export function pinnedSchemathesisVersion(): string {
  const match = /^schemathesis==(\S+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'));
  if (!match) throw new Error(`${REQUIREMENTS} pins no schemathesis version`);
  return match[1]!;
}

/**
 * Path of the `schemathesis` executable: `$GPUSHARE_SCHEMATHESIS` when set, else the virtual
 * environment scripts/install-schemathesis.sh makes (`$GPUSHARE_SCHEMATHESIS_DIR`, default
 * `~/.cache/gpushare/schemathesis-<pinned version>`).
 */
export function schemathesisExecutable(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GPUSHARE_SCHEMATHESIS) return env.GPUSHARE_SCHEMATHESIS;
  const dir =
    env.GPUSHARE_SCHEMATHESIS_DIR ||
    join(homedir(), '.cache', 'gpushare', `schemathesis-${pinnedSchemathesisVersion()}`);
  return join(dir, 'bin', 'schemathesis');
}

/**
 * The seeds every fuzzing test runs with, one after the other, so that a failure repeats:
 * `GPUSHARE_SCHEMATHESIS_SEED` alone when set, else three fixed ones (CI runs all three).
 */
export function fuzzSeeds(env: NodeJS.ProcessEnv = process.env): number[] {
  return env.GPUSHARE_SCHEMATHESIS_SEED ? [Number(env.GPUSHARE_SCHEMATHESIS_SEED)] : [14, 1, 2];
}

/** One check Schemathesis saw fail, with the request that showed it. */
export interface CheckFailure {
  /** `METHOD /path/{template}` of the operation. */
  readonly operation: string;
  /** Check name, e.g. `not_a_server_error`. */
  readonly check: string;
  /** Schemathesis's title and message, e.g. `Server error`. */
  readonly message: string;
  /** The request as sent: method, URL and body text (if any), and the status it got. */
  readonly request: string;
}

/** One request Schemathesis sent and the status it got. */
export interface SentCase {
  /** `METHOD /path/{template}` of the operation. */
  readonly operation: string;
  readonly status: number;
  /** Whether Schemathesis generated it as valid (`positive`) or invalid (`negative`) data. */
  readonly generationMode: string;
  /** Test phase: `examples`, `coverage`, `fuzzing` or `stateful`. */
  readonly phase: string;
  /** Method, URL, and body text (if any), and the status. */
  readonly request: string;
}

/** What one run saw. */
export interface FuzzReport {
  /** Statuses answered per operation (`METHOD /path/{template}`), in the order sent. */
  readonly statuses: ReadonlyMap<string, readonly number[]>;
  /** Failed checks, one per failing case and check. */
  readonly failures: readonly CheckFailure[];
  /** Every request that got an answer. */
  readonly cases: readonly SentCase[];
  /** Number of requests that got an answer. */
  readonly requests: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the NDJSON events are read field by field */

/** Text of a recorded body (`{ $base64 }` or plain `string`), or '' when none. */
function bodyText(body: any): string {
  if (body === undefined || body === null) return '';
  if (typeof body.$base64 === 'string') return Buffer.from(body.$base64, 'base64').toString('utf8');
  return typeof body.string === 'string' ? body.string : JSON.stringify(body);
}

/**
 * Reads a Schemathesis NDJSON report (`--report ndjson`): every `ScenarioFinished` event's cases,
 * their interactions (request, response status) and their checks. A case is attributed to the
 * operation it was generated for (its method and path template), so the stateful phase's chains
 * count for each of their steps; cases of undocumented methods (`TRACE /api/v1/jobs`, sent to see
 * that they are refused) are counted under that method.
 */
export function readNdjsonReport(text: string): FuzzReport {
  const statuses = new Map<string, number[]>();
  const failures: CheckFailure[] = [];
  const cases: SentCase[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as Record<string, any>;
    const recorder = event.ScenarioFinished?.recorder;
    if (!recorder?.cases) continue;
    for (const [caseId, entry] of Object.entries<any>(recorder.cases)) {
      const operation = `${entry.value.method} ${entry.value.path}`;
      const interaction = recorder.interactions?.[caseId];
      const status: number | undefined = interaction?.response?.status_code;
      const request = interaction?.request
        ? (
            `${interaction.request.method} ${interaction.request.uri} ${bodyText(interaction.request.body)} ` +
            `-> ${status ?? 'no answer'}`
          ).replace(/ +/g, ' ')
        : '(no request recorded)';
      if (status !== undefined) {
        statuses.set(operation, [...(statuses.get(operation) ?? []), status]);
        cases.push({
          operation,
          status,
          generationMode: String(entry.value.meta?.generation?.mode ?? ''),
          phase: String(entry.value.meta?.phase?.name ?? ''),
          request,
        });
      }
      for (const check of recorder.checks?.[caseId] ?? []) {
        if (check.status === 'success') continue;
        const failure = check.failure_info?.failure ?? {};
        failures.push({
          operation,
          check: check.name,
          message: `${failure.title ?? ''}: ${failure.message ?? ''}`,
          request,
        });
      }
    }
  }
  return { statuses, failures, cases, requests: cases.length };
}

/* eslint-enable @typescript-eslint/no-explicit-any */

/** Options of {@link runSchemathesis}. */
export interface SchemathesisRunOptions {
  /** The OpenAPI document (a file path). */
  readonly spec: string;
  /** Base URL of the API, e.g. `https://127.0.0.1:7070`. */
  readonly baseUrl: string;
  /** Bearer token sent with every request. */
  readonly token: string;
  /** PEM file of the CA the server's certificate chains to (HTTPS). */
  readonly caFile: string | null;
  /** `positive`, `negative` or `all` (Schemathesis `--mode`). */
  readonly mode: 'positive' | 'negative' | 'all';
  /** Checks to run (Schemathesis `--checks`). */
  readonly checks: readonly string[];
  /** Most test cases per operation and phase (`--max-examples`). */
  readonly maxExamples: number;
  /** Paths left out (`--exclude-path`, exact). */
  readonly excludePaths: readonly string[];
  /** Phases to run (`--phases`), e.g. `coverage`, `fuzzing`; all four when absent. */
  readonly phases?: readonly string[];
  /** Random seed, so that a run can be repeated. */
  readonly seed: number;
  /** Folder the report is written to (and Schemathesis runs in). */
  readonly workDir: string;
  /** Bound of the whole run; the process is killed after it. */
  readonly timeoutMs: number;
}

/** A finished run: exit code, its console output and its report. */
export interface SchemathesisRun extends FuzzReport {
  readonly exitCode: number | null;
  readonly output: string;
}

/**
 * Runs `schemathesis run` once with one worker and reads its NDJSON report; prints one line to
 * stderr with the operations answered, the requests sent and the failed checks.
 * @throws Error when the process cannot start, runs past `timeoutMs` or writes no report
 */
export async function runSchemathesis(options: SchemathesisRunOptions): Promise<SchemathesisRun> {
  const report = join(options.workDir, `report-${options.mode}-${Date.now()}.ndjson`);
  const args = [
    '--config-file',
    CONFIG_FILE,
    'run',
    options.spec,
    '--url',
    options.baseUrl,
    '--header',
    `Authorization: Bearer ${options.token}`,
    ...(options.caFile === null ? [] : ['--tls-verify', options.caFile]),
    '--mode',
    options.mode,
    '--checks',
    options.checks.join(','),
    '--max-examples',
    String(options.maxExamples),
    '--seed',
    String(options.seed),
    ...options.excludePaths.flatMap((path) => ['--exclude-path', path]),
    ...(options.phases === undefined ? [] : ['--phases', options.phases.join(',')]),
    '--workers',
    '1',
    '--request-timeout',
    '20',
    '--generation-database',
    'none',
    '--report',
    'ndjson',
    '--report-ndjson-path',
    report,
    '--no-color',
    '--output-truncate',
    'false',
  ];
  const child = spawn(schemathesisExecutable(), args, {
    cwd: options.workDir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`schemathesis ran past ${options.timeoutMs} ms:\n${output.slice(-4000)}`));
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  if (!existsSync(report)) throw new Error(`schemathesis (exit ${exitCode}) wrote no report:\n${output.slice(-4000)}`);
  const read = readNdjsonReport(readFileSync(report, 'utf8'));
  // One line per run in the test output: what was sent and what failed, for the record.
  process.stderr.write(
    `schemathesis seed ${options.seed} --mode ${options.mode}: ${read.statuses.size} operation keys ` +
      `(undocumented methods included), ${read.requests} requests, ${read.failures.length} failed checks\n`,
  );
  return { exitCode, output, ...read };
}
