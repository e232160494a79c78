/**
 * The environment a job's process gets: a small base taken from the server (PATH, HOME, locale),
 * the job's own variables, then what gpushare sets, which the job cannot override. GPU hand-over
 * follows CUDA's contract: `CUDA_VISIBLE_DEVICES` lists GPU UUIDs or MIG device UUIDs; MPS clients
 * get `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` = ceil(gpuMilli / 10) and
 * `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT` = `<uuid>=<MiB>M,...` (NVIDIA MPS documentation, as collected
 * in docs/processes.md).
 */
import type { Placement } from '../../core/index.js';

/** Variables copied from the server's own environment when set. */
export const BASE_ENVIRONMENT_KEYS = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
] as const;

/** What the environment is built from. */
export interface JobEnvironmentInput {
  readonly jobId: number;
  readonly attempt: number;
  readonly placement: Placement;
  /** Device names for `CUDA_VISIBLE_DEVICES`, one per placed GPU (GPU or MIG device UUIDs). */
  readonly visibleDevices: readonly string[];
  readonly jobEnvironment: Readonly<Record<string, string>>;
  readonly serverEnvironment: Readonly<Record<string, string | undefined>>;
  /** True when the GPUs are simulated. */
  readonly simulated: boolean;
  /** True when an earlier attempt was preempted: the job should resume from its checkpoint. */
  readonly resume: boolean;
  /** The MPS daemon's pipe directory for an `mps` job whose GPU has a daemon; null otherwise. */
  readonly mpsPipeDirectory?: string | null;
  /** The attempt's report token (`GPUSHARE_JOB_TOKEN`, docs/qos.md); absent or null: not set. */
  readonly reportToken?: string | null;
  /** The server's URL (`GPUSHARE_URL`); absent or null: not set. */
  readonly serverUrl?: string | null;
  /** PEM text of the CA of the server's certificate (`GPUSHARE_CA_CERT`); absent or null: not set. */
  readonly serverCaCert?: string | null;
}

/** Builds the complete environment of one attempt. */
export function buildJobEnvironment(input: JobEnvironmentInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of BASE_ENVIRONMENT_KEYS) {
    const value = input.serverEnvironment[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, input.jobEnvironment);
  const { placement } = input;
  const first = placement.gpus[0]!;
  env.CUDA_VISIBLE_DEVICES = input.visibleDevices.join(',');
  env.GPUSHARE_JOB_ID = String(input.jobId);
  env.GPUSHARE_ATTEMPT = String(input.attempt);
  env.GPUSHARE_MODE = placement.mode;
  env.GPUSHARE_GPU_MILLI = String(first.gpuMilli);
  env.GPUSHARE_GPU_MEMORY_MIB = String(first.gpuMemoryMiB);
  env.GPUSHARE_GPU_COUNT = String(placement.gpus.length);
  if (input.reportToken) env.GPUSHARE_JOB_TOKEN = input.reportToken;
  if (input.serverUrl) env.GPUSHARE_URL = input.serverUrl;
  if (input.serverCaCert) env.GPUSHARE_CA_CERT = input.serverCaCert;
  if (input.simulated) env.GPUSHARE_SIMULATED_GPUS = '1';
  if (input.resume) env.GPUSHARE_RESUME = '1';
  if (placement.mode === 'mps') {
    if (input.mpsPipeDirectory) env.CUDA_MPS_PIPE_DIRECTORY = input.mpsPipeDirectory;
    env.CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = String(Math.ceil(first.gpuMilli / 10));
    env.CUDA_MPS_PINNED_DEVICE_MEM_LIMIT = placement.gpus
      .map((g, i) => `${input.visibleDevices[i]}=${g.gpuMemoryMiB}M`)
      .join(',');
  }
  return env;
}
