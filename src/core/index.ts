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
