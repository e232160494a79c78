/**
 * Composition root of the `gpushare` command line: builds the commander program and runs it.
 * bin/gpushare runs this module (bundled into dist/main/gpushare.cjs by `npm run build`, each
 * command it imports on demand a file of dist/main/gpushare-chunks/; or as compiled) and calls
 * {@link main}.
 *
 * Start-up cost is paid only for what runs: `--version` reads package.json and nothing else, a
 * client command (submit, jobs, ...) imports only its own module, and the server, store and
 * simulator (`serve`, `simulate`, `synth-trace`, `pack-by-use`) and the Kubernetes webhook
 * (`webhook`) are imported only by those commands
 * (server-commands.ts, kept out of the bundle). Help and unknown commands load everything.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { CLIENT_COMMANDS, createClientCommands } from '../cli/client-commands.js';
import { processIo } from '../cli/cli-io.js';
import { handleCliError } from '../cli/exit-codes.js';
import type { VerifyAudit } from '../cli/audit-command.js';
import { throwOnExit } from '../cli/option-parsers.js';

/** The server-side commands (see the module comment); the path stays relative to this file in the bundle. */
const SERVER_COMMANDS_MODULE = './server-commands.js';
const SERVER_COMMAND_NAMES = new Set([
  'simulate',
  'synth-trace',
  'pack-by-use',
  'serve',
  'extender',
  'webhook',
  'node-agent',
  'dra-driver',
  'autoscaler',
]);
/** `audit verify` reads the store on this machine: loaded only when it runs, like the server commands. */
const AUDIT_VERIFY_MODULE = './audit-verify.js';
const verifyAudit: VerifyAudit = async (dataDir, options) =>
  ((await import(AUDIT_VERIFY_MODULE)) as typeof import('./audit-verify.js')).verifyDataDirAudit(dataDir, options);

/** The package version, read from package.json (two levels above src/main and dist/main). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/**
 * The command a command line runs: its first argument that is not an option (the root program
 * has only -h/--help and -V/--version), or the one after `help`; undefined for none.
 */
export function commandNameOf(args: readonly string[]): string | undefined {
  const first = args.findIndex((a) => !a.startsWith('-'));
  if (first < 0) return undefined;
  return args[first] === 'help' ? args[first + 1] : args[first];
}

/**
 * Builds the `gpushare` program with the subcommands in `names` (all when undefined). Commander's
 * process exits are turned into thrown CommanderErrors so that {@link main} decides the exit code.
 * @returns A fresh program; run it with `parseAsync`.
 */
export async function createProgram(names?: ReadonlySet<string>): Promise<Command> {
  const version = packageVersion();
  const program = new Command('gpushare')
    .description(
      'GPU-sharing scheduler toolkit: fractional GPUs, fragmentation-aware scheduling, trace-driven simulator',
    )
    .version(version, '-V, --version');
  if (names === undefined || [...names].some((n) => SERVER_COMMAND_NAMES.has(n))) {
    const { createServerCommands } = (await import(SERVER_COMMANDS_MODULE)) as typeof import('./server-commands.js');
    for (const command of await createServerCommands(version, names)) program.addCommand(command);
  }
  for (const command of await createClientCommands(processIo(), names)) program.addCommand(command);
  if (names === undefined || names.has('audit'))
    program.addCommand(throwOnExit((await import('../cli/audit-command.js')).createAuditCommand(verifyAudit)));
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  return program;
}

let stdoutGuarded = false;

/**
 * A reader that stops early (`gpushare jobs | head`) closes the pipe while pages are still being
 * written: exit 0 quietly, as other Unix tools do, instead of an unhandled EPIPE.
 */
function quietOnClosedStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/**
 * Runs the command line.
 * @param argv - Full argv as in `process.argv` (node, script, then arguments).
 * @returns The exit code: 0 success, 1 failed run (bad trace file, I/O), 2 usage error; see exit-codes.ts.
 *   Never throws: errors are reported on stderr.
 */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  quietOnClosedStdout();
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  try {
    const name = commandNameOf(args);
    const known =
      name !== undefined &&
      (SERVER_COMMAND_NAMES.has(name) || name === 'audit' || CLIENT_COMMANDS.some((c) => c.name === name));
    const program = await createProgram(known ? new Set([name]) : undefined);
    await program.parseAsync([...argv]);
    return 0;
  } catch (err) {
    return handleCliError(err);
  }
}
