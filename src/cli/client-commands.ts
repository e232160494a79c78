/**
 * All commands that talk to a running gpushare server (the client side of `gpushare serve`), in
 * the order `gpushare --help` lists them.
 */
import type { Command } from 'commander';
import { createBackupCommand } from './backup-command.js';
import { createCancelCommand } from './cancel-command.js';
import { processIo, type CliIo } from './cli-io.js';
import { createDrainCommand } from './drain-command.js';
import { createGpuCommand } from './gpu-command.js';
import { createGpusCommand } from './gpus-command.js';
import { createJobsCommand } from './jobs-command.js';
import { createLogsCommand } from './logs-command.js';
import { throwOnExit } from './option-parsers.js';
import { createQuotaCommand } from './quota-command.js';
import { createReportCommand } from './report.js';
import { createShowCommand } from './show-command.js';
import { createStatusCommand } from './status-command.js';
import { createSubmitCommand } from './submit-command.js';
import { createTenantCommand } from './tenant-command.js';
import { createTokenCommand } from './token-command.js';

/**
 * Builds the client commands: submit, jobs, show, cancel, logs, gpus, gpu, tenant, quota, token,
 * drain, backup, status. Each (and each subcommand) throws instead of exiting on usage errors.
 * @param io - Output, environment and clock shared by all of them (default: the real process).
 * @returns Fresh commands; add them to the root program.
 */
export function createClientCommands(io: CliIo = processIo()): Command[] {
  return [
    createSubmitCommand(io), createJobsCommand(io), createShowCommand(io), createCancelCommand(io), createLogsCommand(io),
    createGpusCommand(io), createGpuCommand(io), createTenantCommand(io), createQuotaCommand(io), createTokenCommand(io), createReportCommand(io),
    createDrainCommand(io), createBackupCommand(io), createStatusCommand(io),
  ].map(throwOnExit);
}
