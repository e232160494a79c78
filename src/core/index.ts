/**
 * The scheduler core's public surface: the only module other layers import from src/core. Each
 * name is exported by name (no `export *`): what the core offers is read here, and a name added to
 * a core module stays inside the core until it is listed.
 */
export { InvariantViolation } from './model/errors.js';
export { GPU_MILLI_PER_GPU } from './model/quantity.js';
export { findGpuModel, GPU_MODELS, type GpuModelSpec } from './model/gpu-models.js';
export { createNodeStates, type NodeSpec, NodeState } from './framework/node-state.js';
export { type ResourceDemand, totalGpuMilli } from './framework/resource-demand.js';
export { randomPermutation, type Rng, SeededRng, shuffleInPlace } from './random/rng.js';
export { buildTargetWorkload, type TargetWorkload, type TaskShape } from './fragmentation/target-workload.js';
export { nodeFragmentationMilli, nodeWeightedIdleMilli } from './fragmentation/node-fragmentation.js';
export { type SchedulingProfile } from './framework/extension-points.js';
export { Scheduler } from './framework/scheduler.js';
export { DEFAULT_PRIOR_SHAPES } from './workload/online-workload.js';
export { findPolicy, POLICIES, POLICY_NAMES } from './policies/registry.js';
export {
  DEFAULT_ISOLATION,
  type EffectiveMode,
  type GpuRequest,
  ISOLATION_LEVELS,
  type IsolationLevel,
  type JobRequest,
  SHARING_MODES,
  type SharingMode,
} from './model/request.js';
export { PRIORITY_CLASS_NAMES, PRIORITY_CLASSES, type PriorityClassName, priorityClassOf } from './model/priority.js';
export { canTransition, isTerminal, JOB_STATES, type JobState, TERMINAL_STATES } from './model/job-lifecycle.js';
export { type GpuDevice, type MigInstance } from './model/gpu-device.js';
export { type Assignment, type PlacedGpu, type Placement } from './model/assignment.js';
export { type ActiveJob, type ClusterNode, type ClusterSnapshot } from './model/cluster.js';
export {
  AUTOSCALE_CODES,
  type AutoscaleCode,
  JOB_EVENT_CODES,
  JOB_REASON_CODE_VALUES,
  type JobEventCode,
  jobEventReason,
  type JobEventReason,
  status,
  type Status,
  STATUS_CODES,
  type StatusDetails,
  WAIT_CODE_VALUES,
  WAIT_CODES,
  waitReason,
  type WaitReason,
} from './model/status.js';
export { refusalMessage } from './model/refusal-message.js';
export { statusMessage } from './model/status-message.js';
export { waitMessage } from './model/wait-message.js';
export { ADMIN_VIEWER, type StatusViewer, tenantViewer } from './model/status-viewer.js';
export { type Plan, type PlannedPreemption, type PlannedWait } from './framework/plan.js';
export { unvisitedWait, type UnvisitedWaits } from './pass/unvisited-waits.js';
export { ClusterState, type GpuUsage } from './framework/cluster-state.js';
export {
  type BindOutcome,
  ClusterQuery,
  type ClusterQueryOptions,
  type NodeAnswers,
} from './framework/cluster-query.js';
export { CapacityCheck, type CapacityCheckOptions, nodeTooSmall } from './framework/capacity-check.js';
export { placedGpuEquivalents, queuedGpuEquivalents } from './fairness/job-size.js';
export { QueueIndex } from './queue/queue-index.js';
export { type PassRulesOptions, schedule, type ScheduleOptions, SchedulingSession } from './schedule.js';
export { type PreemptionSettings } from './pass/choose-preemption.js';
export { resolveMode } from './sharing/share-accounting.js';
export { type HostCapacity, whyUnresolvable } from './sharing/unresolvable.js';
export { findMigProfile, migGeometry, type MigProfile, migProfilesFor } from './mig/mig-profiles.js';
export { choosePlacement, type MigGpuInstance, smallestProfileFor, validStartsFor } from './mig/mig-allocator.js';
export { planTimeslices, type Timeslice } from './sharing/timeslice-plan.js';
export { apportion } from './sharing/apportion.js';
export {
  classifyCandidate,
  DEFAULT_PREEMPTION_OPTIONS,
  defaultPreemptible,
  isEligible,
  type PreemptionCandidate,
  type PreemptionOptions,
} from './preemption/eligibility.js';
export { planPreemption } from './preemption/plan-preemption.js';
export { secondsSinceCheckpoint } from './preemption/checkpoint-loss.js';
export { gpuEquivalents } from './fairness/gpu-equivalents.js';
export { borrowedGpuEquivalents } from './fairness/quota.js';
export { DEFAULT_AGING, orderQueue, type QueueEntry, type QueueOrderContext } from './queue/queue-order.js';
export { effectiveGpuMilli, selectMode } from './sharing/select-mode.js';
export { ENFORCEMENT_LEVELS, enforcementOf, type ShareEnforcement, weakestEnforcement } from './sharing/enforcement.js';
export { autoscale } from './autoscale/autoscale.js';
export {
  type AutoscaleDecision,
  type AutoscaleInput,
  type AutoscalePolicy,
  type AutoscaleState,
  DEFAULT_AUTOSCALE_POLICY,
  type NodeAction,
  type PoolNode,
  type PoolNodePhase,
  type ProviderFailures,
  type ScaleUp,
} from './autoscale/autoscale-types.js';
export {
  backoffSecondsLeft,
  INITIAL_AUTOSCALE_STATE,
  recordProviderFailure,
  recordProviderSuccess,
} from './autoscale/autoscale-state.js';
export { checkTemplates, newNodeName, type NodeTemplate, templateNode } from './autoscale/node-template.js';
export { autoscaleMessage } from './model/autoscale-message.js';
