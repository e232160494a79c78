/**
 * Workloads whose containers print the GPU environment their CDI device gave them, for the real
 * node's tests: the command prints every `CUDA_*`, `NVIDIA_VISIBLE_DEVICES` and `GPUSHARE_*`
 * variable, sorted, `PIPE_DIRECTORY_MOUNTED=yes` when the MPS pipe directory it names is
 * there (the CDI device's bind mount), then `END`, then waits to be stopped (busybox's sh ignores SIGTERM as PID 1, so
 * it traps it). The log parses back into a map.
 */
import { TEST_IMAGES } from './node-images.js';

/** The container command (busybox sh). */
export const PRINT_GPU_ENV = [
  'sh',
  '-c',
  "env | grep -E '^(CUDA_|NVIDIA_VISIBLE_DEVICES|GPUSHARE_)' | sort; " +
    'if [ -n "$CUDA_MPS_PIPE_DIRECTORY" ] && [ -d "$CUDA_MPS_PIPE_DIRECTORY" ]; then ' +
    'echo PIPE_DIRECTORY_MOUNTED=yes; fi; ' +
    "echo END; trap 'exit 0' TERM; sleep 3600 & wait",
];

/** The marker after the variables. */
export const GPU_ENV_END = 'END';

/** `KEY=VALUE` lines of a log up to {@link GPU_ENV_END}, as a map. */
export function parseGpuEnv(log: string): Record<string, string> {
  const lines = log.split('\n');
  const end = lines.indexOf(GPU_ENV_END);
  return Object.fromEntries(
    lines.slice(0, end < 0 ? lines.length : end).flatMap((line) => {
      const at = line.indexOf('=');
      return at > 0 ? [[line.slice(0, at), line.slice(at + 1)]] : [];
    }),
  );
}

/** A pod of `gpus` whole GPUs (`nvidia.com/gpu`, as users write it) that prints its GPU environment. */
export function gpuEnvPod(name: string, gpus: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: TEST_IMAGES.busybox,
          command: PRINT_GPU_ENV,
          resources: { limits: { 'nvidia.com/gpu': gpus } },
        },
      ],
    },
  };
}
