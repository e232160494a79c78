// Argument handling of the stand-in nvidia-smi (simulated-nvidia-smi.ts): parses `-L` and `mig …`
// arguments like the real one, and dispatches to the listing (simulated-nvidia-smi-format.ts) and
// MIG (simulated-nvidia-smi-mig.ts) commands on a copy of the state.
import { Out, listComputeInstances, listGpuInstances, listGpus } from './simulated-nvidia-smi-format.js';
import { createGpuInstances, destroyComputeInstances, destroyGpuInstances } from './simulated-nvidia-smi-mig.js';
import {
  SIMULATED_SMI_EXIT,
  checkSimulatedNvidiaSmiState,
  type SimulatedSmiResult,
  type SimulatedSmiState,
} from './simulated-nvidia-smi-state.js';

class ArgError extends Error {}

const INVALID_COMBINATION = "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.";

/** Parses a comma list of non-negative integers (`-gi 1,2`). */
function intList(flag: string, value: string | undefined): number[] {
  if (value === undefined || !/^\d+(,\d+)*$/.test(value))
    throw new ArgError(`Invalid value for ${flag}: ${value ?? '(missing)'}`);
  return value.split(',').map(Number);
}

/** Resolves `-i` (index or GPU UUID, comma list) to GPU indices; null = all GPUs. */
function selectGpus(state: SimulatedSmiState, id: string | undefined): number[] | null {
  if (id === undefined) return null;
  const indices: number[] = [];
  for (const part of id.split(',')) {
    const index = /^\d+$/.test(part) ? Number(part) : state.gpus.findIndex((g) => g.uuid === part);
    if (index < 0 || index >= state.gpus.length) return [];
    indices.push(index);
  }
  return indices;
}

/** Splits `--flag=value` into flag and value, for the long options. */
function splitArgs(argv: readonly string[]): string[] {
  return argv.flatMap((a) =>
    a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a],
  );
}

const MIG_FLAGS: Readonly<Record<string, string>> = {
  '-i': 'id',
  '--id': 'id',
  '-lgi': 'lgi',
  '--list-gpu-instances': 'lgi',
  '-lci': 'lci',
  '--list-compute-instances': 'lci',
  '-cgi': 'cgi',
  '--create-gpu-instance': 'cgi',
  '-C': 'C',
  '--default-compute-instance': 'C',
  '-dci': 'dci',
  '--destroy-compute-instance': 'dci',
  '-dgi': 'dgi',
  '--destroy-gpu-instance': 'dgi',
  '-gi': 'gi',
  '--gpu-instance-id': 'gi',
  '-ci': 'ci',
  '--compute-instance-id': 'ci',
};
const TAKES_VALUE = new Set(['id', 'cgi', 'gi', 'ci']);
const ACTIONS = ['lgi', 'lci', 'cgi', 'dci', 'dgi'];

function runMig(state: SimulatedSmiState, argv: readonly string[], out: Out): void {
  const opts = new Map<string, string | true>();
  for (let k = 0; k < argv.length; k++) {
    const key = MIG_FLAGS[argv[k]!];
    if (key === undefined || opts.has(key)) throw new ArgError(INVALID_COMBINATION);
    if (TAKES_VALUE.has(key)) {
      const value = argv[++k];
      if (value === undefined) throw new ArgError(INVALID_COMBINATION);
      opts.set(key, value);
    } else {
      opts.set(key, true);
    }
  }
  const actions = ACTIONS.filter((a) => opts.has(a));
  const action = actions[0];
  if (
    actions.length !== 1 ||
    action === undefined ||
    (opts.has('C') && action !== 'cgi') ||
    (opts.has('ci') && action !== 'dci') ||
    (opts.has('gi') && (action === 'lgi' || action === 'cgi'))
  ) {
    throw new ArgError(INVALID_COMBINATION);
  }
  const str = (key: string): string | undefined => {
    const v = opts.get(key);
    return typeof v === 'string' ? v : undefined;
  };
  const selected = selectGpus(state, str('id'));
  if (selected !== null && selected.length === 0) {
    out.print('No devices were found');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  const targets = (selected ?? state.gpus.map((_, i) => i)).filter((i) => state.gpus[i]!.migEnabled);
  if (targets.length === 0) {
    out.print('No MIG-enabled devices found.');
    out.fail(SIMULATED_SMI_EXIT.notFound);
    return;
  }
  const gi = opts.has('gi') ? intList('-gi', str('gi')) : null;
  const ci = opts.has('ci') ? intList('-ci', str('ci')) : null;
  switch (action) {
    case 'lgi':
      listGpuInstances(state, targets, out);
      break;
    case 'lci':
      listComputeInstances(state, targets, gi, out);
      break;
    case 'cgi':
      createGpuInstances(state, targets, (str('cgi') ?? '').split(','), opts.has('C'), out);
      break;
    case 'dci':
      destroyComputeInstances(state, targets, gi, ci, out);
      break;
    default:
      destroyGpuInstances(state, targets, gi, out);
      break;
  }
}

/**
 * Runs one stand-in nvidia-smi command on a copy of `state`. `argv` are the arguments after the
 * program name. Supported: `-L` / `--list-gpus` (optionally with `-i`), and `mig` with `-i`, `-lgi`,
 * `-lci [-gi]`, `-cgi LIST [-C]`, `-dci [-gi] [-ci]`, `-dgi [-gi]` (long forms and `--flag=value`
 * too). Anything else prints `Invalid combination of input arguments…` and exits 2. All messages go
 * to stdout. Never throws for bad arguments; throws SimulatedSmiStateError for a state whose GIs
 * name unknown profiles.
 */
export function runSimulatedNvidiaSmi(argv: readonly string[], state: SimulatedSmiState): SimulatedSmiResult {
  const copy = checkSimulatedNvidiaSmiState(JSON.parse(JSON.stringify(state)) as unknown);
  const out = new Out();
  try {
    const args = splitArgs(argv);
    if (args[0] === 'mig') {
      runMig(copy, args.slice(1), out);
    } else {
      const listFlag = args.filter((a) => a === '-L' || a === '--list-gpus');
      const rest = args.filter((a) => a !== '-L' && a !== '--list-gpus');
      if (
        listFlag.length !== 1 ||
        !(rest.length === 0 || (rest.length === 2 && (rest[0] === '-i' || rest[0] === '--id')))
      ) {
        throw new ArgError(INVALID_COMBINATION);
      }
      const selected = selectGpus(copy, rest[1]);
      if (copy.gpus.length === 0 || (selected !== null && selected.length === 0)) {
        out.print('No devices were found');
        out.fail(SIMULATED_SMI_EXIT.notFound);
      } else {
        listGpus(copy, selected ?? copy.gpus.map((_, i) => i), out);
      }
    }
  } catch (e) {
    if (!(e instanceof ArgError)) throw e;
    out.print(e.message);
    out.fail(SIMULATED_SMI_EXIT.invalidArgument);
  }
  const stdout = out.lines.length === 0 ? '' : `${out.lines.join('\n')}\n`;
  return { stdout, stderr: '', exitCode: out.exitCode, state: copy, changed: out.changed };
}
