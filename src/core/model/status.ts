/**
 * A coded Status, the answer of every decision that says no (the kube-scheduler framework's
 * `Status`, with Unschedulable and UnschedulableAndUnresolvable as `lasting`): a code from one
 * closed set, whether it lasts, and the figures behind it. A filter refusing a node, a node the
 * extender refuses, a job that waits: each is a Status. Waiting is an expected outcome of a pass,
 * returned as data; only a broken invariant throws (InvariantViolation). docs/reasons.md says
 * what each code means and what a user can do.
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

/** The `WAIT_CODES` values, in their order (the API's `reasonCode` enum). */
export const WAIT_CODE_VALUES = Object.values(WAIT_CODES) as [WaitCode, ...WaitCode[]];

/**
 * Codes of why one node cannot take a job, beyond the shortages a job also waits for (`host-cpu`,
 * `host-memory`, `gpu-capacity`, `mig-capacity`): what only a change of the node itself (its GPUs,
 * their models, memory or MIG mode) would change, and the extender's MIG rule.
 */
export const NODE_CODES = {
  /** The node has no GPU. */
  noGpu: 'no-gpu',
  /** None of its GPUs is of a model the job allows (`allowedGpuModels`). */
  gpuModelNotAllowed: 'gpu-model-not-allowed',
  /** None of its GPUs has the `gpuMemoryMiB` the job asks for. */
  gpuMemoryTooSmall: 'gpu-memory-too-small',
  /** Every GPU of the node is in MIG mode, and the job asks for a share of a whole GPU. */
  noGpuOutsideMig: 'no-gpu-outside-mig',
  /** No GPU of the node is in MIG mode, and the job asks for a MIG instance. */
  noMigMode: 'no-mig-mode',
  /** No MIG profile of the node's GPUs covers the job's request. */
  noMigProfile: 'no-mig-profile',
  /** No idle MIG instance covers the job, and this cluster does not create instances on demand. */
  migReuseOnly: 'mig-reuse-only',
} as const;

/** One of the `NODE_CODES` values. */
export type NodeCode = (typeof NODE_CODES)[keyof typeof NODE_CODES];

/** Every code a Status may have, in the order docs/reasons.md lists them. */
export const STATUS_CODES: readonly StatusCode[] = [...WAIT_CODE_VALUES, ...Object.values(NODE_CODES)];

/** One code of the closed set. */
export type StatusCode = WaitCode | NodeCode;

/** A figure behind a Status (a count, an amount, a name, a job id, a list of GPU indices or names). */
export type StatusDetail = string | number | boolean | null | readonly number[] | readonly string[];

/** The figures behind a Status, by name (e.g. `{ neededCpuMilli: 8000, freeCpuMilli: 4000 }`). */
export type StatusDetails = Readonly<Record<string, StatusDetail>>;

/** A decision's no, as data. */
export interface Status<C extends StatusCode = StatusCode> {
  readonly code: C;
  /**
   * True when nothing but a change of the cluster itself (its nodes, GPUs, MIG modes) can make it
   * yes (the kube-scheduler's UnschedulableAndUnresolvable); false for a shortage that ends as jobs
   * leave.
   */
  readonly lasting: boolean;
  readonly details: StatusDetails;
}

/** A Status of `code` (`details` empty unless given). */
export function status<C extends StatusCode>(code: C, lasting: boolean, details: StatusDetails = {}): Status<C> {
  return { code, lasting, details };
}

/** A figure behind a reason (a count, an amount, a job id, a list of GPU indices). */
export type WaitDetail = StatusDetail;

/** Why a job waits: a Status that does not last (jobs that could never run are refused at submit), and its line. */
export interface WaitReason extends Status<WaitCode> {
  /** One line for people, e.g. `waiting for host CPU: needs 8000 cpuMilli, 4000 free`. */
  readonly message: string;
}

/** Builds a reason. */
export function waitReason(code: WaitCode, message: string, details: StatusDetails = {}): WaitReason {
  return { code, lasting: false, message, details };
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
    lasting: false,
    get message() {
      return get().message;
    },
    get details() {
      return get().details;
    },
  };
}
