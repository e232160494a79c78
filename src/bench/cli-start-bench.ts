/**
 * Start-up cost of the commands users and the server run most: `gpushare --version`, `gpushare
 * submit` (against a running server) and the stand-in nvidia-smi (`-L`), each against `node -e 0`
 * measured in the same run. The commands are run in rounds, one of each per round, so that a
 * noisy neighbour slows them alike; each figure is the median wall time over the rounds, measured
 * from spawn to exit. Reports PASS/FAIL of `gpushare submit` minus `node -e 0` against 50 ms (issue
 * 21: what the CLI adds to a bare Node start for a submit).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultSimulatedNvidiaSmiCliPath } from '../adapters/gpu/simulated-mig-manager.js';
import { createSimulatedNvidiaSmiState, writeSimulatedNvidiaSmiState } from '../adapters/gpu/simulated-nvidia-smi.js';
import { BenchCleanup, reapJobs } from './bench-cleanup.js';
import { num, times } from './format.js';
import { median } from '../lib/statistics.js';
import { formatTable } from '../lib/text-table.js';
import { startServerProcess, stopServerProcess } from './server-process.js';

const BIN = fileURLToPath(new URL('../../bin/gpushare', import.meta.url));
/** `gpushare submit` may take at most this many ms more than `node -e 0`. */
const SUBMIT_ABOVE_NODE_TARGET_MS = 50;
const SUBMIT = 'gpushare submit --gpu 0.1 -- true';

/** One command's start figure. */
export interface StartFigure {
  readonly name: string;
  readonly argv: readonly string[];
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  /** Median ÷ the median of `node -e 0`. */
  readonly ratioToNode: number;
}

/** Result of the start-up benchmark. */
export interface CliStartResult {
  readonly rounds: number;
  readonly figures: readonly StartFigure[];
  /** Target: each command within this multiple of `node -e 0`. */
  readonly targetRatio: number;
  /** Median of `gpushare submit` minus the median of `node -e 0`, against its target (50 ms). */
  readonly submitAboveNode: { readonly target: number; readonly measuredMs: number; readonly pass: boolean };
}

/** Runs `argv` once; returns its wall time in ms. @throws Error when it exits non-zero */
function timeRun(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return ms;
}

/** Runs the benchmark with `rounds` rounds (one warm-up round first, not counted). */
export async function runCliStartBench(rounds: number, progress: (message: string) => void): Promise<CliStartResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-cli-start-'));
  const cleanup = new BenchCleanup(dir);
  try {
    await startServerProcess(cleanup, { serverNodeArgs: [], simulateGpus: '4xA100-80GB' }, { text: '' });
    // The server wrote its URL and admin token to the CLI config under this XDG_CONFIG_HOME.
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'config') };
    const stateFile = join(dir, 'stand-in-state.json');
    writeSimulatedNvidiaSmiState(
      stateFile,
      createSimulatedNvidiaSmiState([
        { model: 'A100-80GB', mig: true },
        { model: 'A100-80GB', mig: false },
      ]),
    );
    const node = process.execPath;
    const commands: { name: string; argv: string[] }[] = [
      { name: 'node -e 0', argv: [node, '-e', '0'] },
      { name: 'gpushare --version', argv: [node, BIN, '--version'] },
      { name: SUBMIT, argv: [node, BIN, 'submit', '--gpu', '0.1', '--', 'true'] },
      {
        name: 'stand-in nvidia-smi -L',
        argv: [node, defaultSimulatedNvidiaSmiCliPath(), '--state', stateFile, '--', '-L'],
      },
    ];
    const runs = commands.map(() => [] as number[]);
    for (let round = 0; round <= rounds; round++) {
      commands.forEach((c, i) => {
        const ms = timeRun(c.argv, env);
        if (round > 0) runs[i]!.push(ms);
      });
    }
    const nodeMedian = median(runs[0]!);
    const figures = commands.map((c, i) => ({
      name: c.name,
      argv: c.argv,
      runsMs: runs[i]!,
      medianMs: median(runs[i]!),
      ratioToNode: median(runs[i]!) / nodeMedian,
    }));
    for (const f of figures)
      progress(`cli start: ${f.name}: median ${num(f.medianMs, 1)} ms (${times(f.ratioToNode)} node -e 0)`);
    const submitAboveNodeMs = figures.find((f) => f.name === SUBMIT)!.medianMs - nodeMedian;
    return {
      rounds,
      figures,
      targetRatio: 3,
      submitAboveNode: {
        target: SUBMIT_ABOVE_NODE_TARGET_MS,
        measuredMs: submitAboveNodeMs,
        pass: submitAboveNodeMs <= SUBMIT_ABOVE_NODE_TARGET_MS,
      },
    };
  } finally {
    if (cleanup.server) await stopServerProcess(cleanup.server);
    await reapJobs(cleanup);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Report lines of a start-up benchmark. */
export function formatCliStart(result: CliStartResult, title: string): string[] {
  return [
    `${title}: median wall time over ${result.rounds} rounds (spawn to exit), against node -e 0 in the same rounds`,
    formatTable(
      [
        ['command', 'median (ms)', '÷ node -e 0', `within ${result.targetRatio}×`],
        ...result.figures.map((f) => [
          f.name,
          num(f.medianMs, 1),
          times(f.ratioToNode),
          f.ratioToNode <= result.targetRatio ? 'yes' : 'no',
        ]),
      ],
      { right: [false, true, true, false] },
    ),
    `${result.submitAboveNode.pass ? 'PASS' : 'FAIL'} gpushare submit above node -e 0 within ` +
      `${result.submitAboveNode.target} ms: ${num(result.submitAboveNode.measuredMs, 1)} ms`,
  ];
}
