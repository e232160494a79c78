/**
 * Why a job waits: a stable code for programs (API, metrics, tests), a message for people, and
 * the figures behind it. Waiting is an expected outcome of a pass, returned as data; only a broken
 * invariant throws (InvariantViolation).
 */

/** Codes of the reasons a pending job waits, by what it waits for. */
export const WAIT_CODES = {
  /** No node has the host CPU it asks for free. */
  hostCpu: 'host-cpu',
  /** No node has the host memory it asks for free. */
  hostMemory: 'host-memory',
  /** Not enough GPUs of one model with the free compute and memory (or the mode) it needs. */
  gpuCapacity: 'gpu-capacity',
  /** No MIG GPU has room for its GPU instance now. */
  migCapacity: 'mig-capacity',
  /** No schedulable MIG GPU has a profile that covers it. */
  noMigGpu: 'no-mig-gpu',
  /** `strict` isolation: neither a MIG instance nor whole GPUs are free. */
  strictIsolation: 'strict-isolation',
  /** Its tenant's quota would be exceeded. */
  quota: 'quota',
  /** A blocked job ahead of it has a reservation it would delay (EASY backfill). */
  backfill: 'backfill',
  /** It fits only on GPUs protected for a job that misses its QoS target. */
  qosProtected: 'qos-protected',
  /** MPS: it fits only on GPUs whose MPS daemon serves another tenant's jobs (one tenant per MPS GPU, docs/mps.md). */
  mpsTenant: 'mps-tenant',
  /** Its victims are checkpointing and exiting; it starts when they are gone. */
  preempting: 'preempting',
} as const;

/** One of the `WAIT_CODES` values. */
export type WaitCode = (typeof WAIT_CODES)[keyof typeof WAIT_CODES];

/** A figure behind a reason (a count, an amount, a job id, a list of GPU indices). */
export type WaitDetail = string | number | boolean | null | readonly number[];

/** Why a job waits. */
export interface WaitReason {
  readonly code: WaitCode;
  /** One line for people, e.g. `waiting for host CPU: needs 8000 cpuMilli, 4000 free`. */
  readonly message: string;
  /** The figures the message states, by name (e.g. `{ neededCpuMilli: 8000, freeCpuMilli: 4000 }`). */
  readonly details: Readonly<Record<string, WaitDetail>>;
}

/** Builds a reason. */
export function waitReason(
  code: WaitCode,
  message: string,
  details: Readonly<Record<string, WaitDetail>> = {},
): WaitReason {
  return { code, message, details };
}

/**
 * A reason whose message and details are worked out only when read: a pass over a deep queue or a
 * trace replay makes many reasons nobody reads, and some (how many GPUs qualify) cost a walk over
 * every GPU.
 */
export function lazyWaitReason(
  code: WaitCode,
  describe: () => { message: string; details: Readonly<Record<string, WaitDetail>> },
): WaitReason {
  let described: { message: string; details: Readonly<Record<string, WaitDetail>> } | null = null;
  const get = () => (described ??= describe());
  return {
    code,
    get message() {
      return get().message;
    },
    get details() {
      return get().details;
    },
  };
}
