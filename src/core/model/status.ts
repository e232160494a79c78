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
  /** Even empty, the node could not hold the job (node, refusal: what the empty node answers). */
  nodeTooSmall: 'node-too-small',
  /**
   * No node of the cluster, even empty, could hold the job (nodeCount, largestNode: the node that comes
   * closest, refusal: what it answers empty).
   */
  fitsNoNode: 'fits-no-node',
} as const;

/** One of the `NODE_CODES` values. */
export type NodeCode = (typeof NODE_CODES)[keyof typeof NODE_CODES];

/** Codes of why the preemption planner found no victims for a job (plan-preemption.ts, plan-on-one-node.ts). */
export const PREEMPTION_CODES = {
  /** No running job may be preempted for it (details: how many are ineligible, by rule). */
  noEligibleVictim: 'no-eligible-victim',
  /** It would not fit even with every eligible victim gone. */
  noRoomWithVictims: 'no-room-with-victims',
  /** It fits without preemption. */
  fitsWithoutPreemption: 'fits-without-preemption',
  /** With victims on one node only: no node can make room (details: each node's refusal). */
  noNodeWithRoom: 'no-node-with-room',
} as const;

/** One of the `PREEMPTION_CODES` values. */
export type PreemptionCode = (typeof PREEMPTION_CODES)[keyof typeof PREEMPTION_CODES];

/**
 * Codes of the autoscaler's decisions (src/core/autoscale): why it adds nodes, why it adds none (or
 * fewer than the queue asks for), why it cordons or removes a node, and why it keeps one.
 */
export const AUTOSCALE_CODES = {
  /** Pending jobs fit no node of the pool, booting nodes included (jobCount, nodeCount, template). */
  unschedulableJobs: 'unschedulable-jobs',
  /** Fewer jobs need new nodes than the queue-length threshold (jobCount, threshold, waitSeconds). */
  belowQueueThreshold: 'below-queue-threshold',
  /** A scale-up happened less than the cool-down ago (secondsLeft). */
  scaleUpCoolingDown: 'scale-up-cooling-down',
  /** A job fits no template's empty node (jobId): no node the autoscaler can add would run it. */
  noTemplateFits: 'no-template-fits',
  /** The pool has its maximum number of nodes (maxNodes, jobId). */
  maxNodes: 'max-nodes',
  /** Another node would pass the cap on cost per hour (maxCostPerHour, costPerHour, jobId). */
  maxCost: 'max-cost',
  /** The template has its maximum count (template, maxCount, jobId). */
  templateMaxCount: 'template-max-count',
  /** The provider failed for the template lately; it is asked again later (template, failures, secondsLeft). */
  providerBackoff: 'provider-backoff',
  /** A booting node did not come up within boot time + time-out (node, template, bootSeconds, timeoutSeconds). */
  bootTimedOut: 'boot-timed-out',
  /** A node held no job for the cool-down (node, template, idleSeconds). */
  nodeIdle: 'node-idle',
  /**
   * A node's GPUs were nearly idle for the cool-down, and its jobs fit elsewhere (node, template, utilization,
   * threshold, idleSeconds, jobIds).
   */
  nodeUnderused: 'node-underused',
  /** A nearly idle node is kept: it runs a job that cannot be checkpointed (node, jobId). */
  uncheckpointableJob: 'uncheckpointable-job',
  /** A nearly idle node is kept: its jobs would not fit the other nodes (node, jobIds). */
  jobsFitNowhereElse: 'jobs-fit-nowhere-else',
  /** A node is kept: its template is at its minimum count (node, template, minCount). */
  templateMinCount: 'template-min-count',
  /** A node chosen for removal is kept, cordoned: jobs were placed on it after the decision (node, template, jobs). */
  nodeNotEmpty: 'node-not-empty',
} as const;

/** One of the `AUTOSCALE_CODES` values. */
export type AutoscaleCode = (typeof AUTOSCALE_CODES)[keyof typeof AUTOSCALE_CODES];

/**
 * Codes of what happened to a job, stored with its transitions, its attempts' ends and its stop
 * intents (the app's job events; src/app/scheduling/job-event-reasons.ts writes their lines).
 */
export const JOB_EVENT_CODES = {
  /** Placed on GPUs (node, gpus, mode; for `auto` jobs why that mode). */
  placed: 'placed',
  /** An attempt started (attempt, pid). */
  attemptStarted: 'attempt-started',
  /** The command exited by itself (exitCode). */
  exited: 'exited',
  /** The command was killed by a signal gpushare did not send (signal). */
  killed: 'killed',
  /** The process vanished without an outcome. */
  lost: 'lost',
  /** The command never ran (error: the supervisor's words, e.g. E2BIG). */
  couldNotStart: 'could-not-start',
  /** gpushare could not launch it (error). */
  launchFailed: 'launch-failed',
  /** Re-queued after a failure, retries left (retry, retries, failure: the failure's Status). */
  retry: 'retry',
  /** Stopped at its time limit. */
  timeLimit: 'time-limit',
  /** Ended at its process limit: a fork was refused at `pids.max` (pidsMax, forksRefused). */
  processLimit: 'process-limit',
  /** Ended at its host-memory limit: the OOM killer ended a process (hostMemoryMiB, oomKills). */
  hostMemoryLimit: 'host-memory-limit',
  /** A cancel was asked for while it runs (by); a stop intent that survives restarts. */
  cancelRequested: 'cancel-requested',
  /** Cancelled (by). */
  cancelled: 'cancelled',
  /** Chosen as a preemption victim (preemptorJobId, preemptorPriority); a stop intent that survives restarts. */
  preemptionRequested: 'preemption-requested',
  /** Stopped by a preemption, queued to resume from its checkpoint (preemptorJobId, preemptorPriority). */
  preempted: 'preempted',
  /** Its attempt had started before a restart of the server (attempt). */
  attemptRecovered: 'attempt-recovered',
  /** Re-queued: the server stopped while launching it. */
  requeuedAfterStop: 'requeued-after-stop',
  /** Re-queued: the disk was full at launch. */
  requeuedDiskFull: 'requeued-disk-full',
  /** A QoS target missed (kind, observedSeconds, targetSeconds, violationSeconds). */
  qosViolation: 'qos-violation',
  /** A QoS target met again (kind, observedSeconds, targetSeconds). */
  qosRecovered: 'qos-recovered',
  /**
   * Runs in a private working directory of its own: the folder it was submitted from cannot be its
   * working directory (requestedDirectory, problem: the check's words); a note at submit.
   */
  workdirNotWritable: 'workdir-not-writable',
  /** A reason stored before reasons were coded that matches no code (text; shown to admins only). */
  recorded: 'recorded',
} as const;

/** One of the `JOB_EVENT_CODES` values. */
export type JobEventCode = (typeof JOB_EVENT_CODES)[keyof typeof JOB_EVENT_CODES];

/** The codes a job's reason may have (the API's `reasonCode` enum): why it waits, or what happened to it. */
export const JOB_REASON_CODE_VALUES = [...WAIT_CODE_VALUES, ...Object.values(JOB_EVENT_CODES)] as [
  WaitCode | JobEventCode,
  ...(WaitCode | JobEventCode)[],
];

/** Every code a Status may have, in the order docs/reasons.md lists them. */
export const STATUS_CODES: readonly StatusCode[] = [
  ...WAIT_CODE_VALUES,
  ...Object.values(NODE_CODES),
  ...Object.values(PREEMPTION_CODES),
  ...Object.values(JOB_EVENT_CODES),
  ...Object.values(AUTOSCALE_CODES),
];

/** One code of the closed set. */
export type StatusCode = WaitCode | NodeCode | PreemptionCode | JobEventCode | AutoscaleCode;

/**
 * A figure behind a Status: a count, an amount, a name, a job id, a list, a record of figures (a
 * GPU and the job it is protected for), or a nested Status. Plain JSON: a Status survives
 * `JSON.parse(JSON.stringify(status))` unchanged.
 */
export type StatusDetail =
  string | number | boolean | null | readonly StatusDetail[] | Status | { readonly [name: string]: StatusDetail };

/** The figures behind a Status, by name (e.g. `{ neededCpuMilli: 8000, freeCpuMilli: 4000 }`). */
export type StatusDetails = { readonly [name: string]: StatusDetail };

/** A decision's no, or what happened to a job, as data. */
export interface Status<C extends StatusCode = StatusCode> {
  readonly code: C;
  /**
   * True when nothing but a change of the cluster itself (its nodes, GPUs, MIG modes) can make it
   * yes (the kube-scheduler's UnschedulableAndUnresolvable); false for a shortage that ends as jobs
   * leave, and for a job's events.
   */
  readonly lasting: boolean;
  readonly details: StatusDetails;
}

/** A Status of `code` (`details` empty unless given). */
export function status<C extends StatusCode>(code: C, lasting: boolean, details: StatusDetails = {}): Status<C> {
  return { code, lasting, details };
}

/**
 * Why a job waits: a Status that does not last (jobs that could never run are refused at submit).
 * Its line is written for each viewer by waitMessage() (wait-message.ts).
 */
export type WaitReason = Status<WaitCode>;

/** Builds a reason. */
export function waitReason(code: WaitCode, details: StatusDetails = {}): WaitReason {
  return { code, lasting: false, details };
}

/** What happened to a job (a transition's reason, an attempt's end, a stop intent), as data. */
export type JobEventReason = Status<JobEventCode>;

/** Builds a job event's reason. */
export function jobEventReason(code: JobEventCode, details: StatusDetails = {}): JobEventReason {
  return { code, lasting: false, details };
}
