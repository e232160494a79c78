/**
 * `gpushare jobs [--all] [--state S] [-o table|json]`: lists the caller's jobs (every tenant's for
 * an admin); without `--all` only jobs that have not finished.
 */
import { Command, Option } from 'commander';
import { JOB_STATES, type JobState } from '../core/index.js';
import { processIo, type CliIo } from './cli-io.js';
import { addConnectionOptions, connect, type ConnectionFlags } from './connection.js';
import { formatJobsTable } from './format-jobs.js';
import { jsonForTerminal } from '../lib/control-characters.js';

interface JobsOptions extends ConnectionFlags {
  all?: boolean;
  state?: JobState;
  output: 'table' | 'json';
}

/**
 * Builds the `jobs` subcommand. `-o json` prints exactly a JSON array of jobs (as the API's
 * JobSchema). The action rejects with ApiError / ApiUnreachableError / UsageError.
 * @param io - Output, environment and clock (default: the real process).
 */
export function createJobsCommand(io: CliIo = processIo()): Command {
  const command = new Command('jobs')
    .description('list jobs: the table, or -o json for a JSON array')
    .allowExcessArguments(false)
    .addOption(new Option('--all', 'include finished jobs (succeeded, failed, cancelled)'))
    .addOption(new Option('--state <state>', 'only jobs in this state').choices(JOB_STATES))
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: JobsOptions) => {
      const jobs = await connect(opts, io).listJobs({ all: opts.all === true || opts.state !== undefined, state: opts.state });
      io.stdout(opts.output === 'json' ? `${jsonForTerminal(jobs)}\n` : `${formatJobsTable(jobs, io.nowMs())}\n`);
    });
  return addConnectionOptions(command);
}
