/**
 * The scheduler core's public surface: the only module other layers import from src/core.
 */
export * from './model/errors.js';
export * from './model/quantity.js';
export * from './model/gpu-models.js';
export * from './model/node.js';
export * from './model/request.js';
export * from './model/allocation.js';
export * from './random/rng.js';
export * from './fragmentation/target-workload.js';
export * from './fragmentation/node-fragmentation.js';
export * from './framework/cycle-state.js';
export * from './framework/extension-points.js';
export * from './framework/scheduler.js';
export * from './workload/online-workload.js';
export * from './policies/registry.js';
export * from './fragmentation/capacity-fragmentation.js';
export * from './control/job.js';
export * from './control/gpu-device.js';
export * from './control/share-accounting.js';
export * from './control/queue-order.js';
export * from './control/server-scheduler.js';
export * from './control/unresolvable.js';
export * from './mig/mig-profiles.js';
export * from './mig/mig-allocator.js';
export * from './control/timeslice-plan.js';
export * from './preemption/eligibility.js';
export * from './preemption/victim-cost.js';
export * from './preemption/plan-preemption.js';
export * from './fairness/gpu-equivalents.js';
export * from './fairness/tenant-usage.js';
export * from './fairness/quota.js';
export * from './fairness/dominant-share.js';
export * from './queue/queue-order.js';
export * from './queue/backfill.js';
export * from './control/pass-options.js';
export * from './control/select-mode.js';
