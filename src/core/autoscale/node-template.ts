/**
 * A node template: the kind of node an autoscaler may add (a cloud instance type, a Cluster API
 * MachineDeployment), with its GPUs, host capacity, hourly price, count limits and boot time; and
 * the ClusterNode a template's node would be once booted, for placing jobs on it before it exists.
 */
import type { ClusterNode } from '../model/cluster.js';
import { InvariantViolation } from '../model/errors.js';
import { findGpuModel } from '../model/gpu-models.js';

/** One kind of node the pool may grow by. */
export interface NodeTemplate {
  /** Unique name (`a100x8`); the provider's key for the group it scales. */
  readonly name: string;
  /** GPU model of every GPU, a catalog name or alias (`A100-80GB`, `V100M32`, a trace code). */
  readonly gpuModel: string;
  /** GPUs per node, ≥ 0 (0: a CPU-only node). */
  readonly gpuCount: number;
  /**
   * Whether its GPUs may be switched into MIG mode for `mig` jobs (only where the model supports
   * MIG); false keeps `mig` jobs off it.
   */
  readonly migCapable: boolean;
  /** Host CPU offered to jobs, milli-cores. */
  readonly hostCpuMilli: number;
  /** Host memory offered to jobs, MiB. */
  readonly hostMemoryMiB: number;
  /** Price of one node-hour, in the operator's currency (e.g. USD). */
  readonly pricePerHour: number;
  /** Nodes of this template the pool keeps at least, ≥ 0. */
  readonly minCount: number;
  /** Nodes of this template the pool has at most, ≥ minCount. */
  readonly maxCount: number;
  /** Seconds from the provider's call until the node takes jobs. */
  readonly bootSeconds: number;
}

/**
 * Checks templates: unique names, a known GPU model, counts and amounts in range, MIG only where
 * the model supports it.
 * @throws InvariantViolation naming the template and the field
 */
export function checkTemplates(templates: readonly NodeTemplate[]): void {
  const seen = new Set<string>();
  for (const t of templates) {
    const bad = (field: string, allowed: string): never => {
      throw new InvariantViolation(`node template '${t.name}': ${field} must be ${allowed}`);
    };
    if (t.name === '' || seen.has(t.name)) bad('name', 'unique and non-empty');
    seen.add(t.name);
    const model = findGpuModel(t.gpuModel);
    if (t.gpuCount > 0 && model === undefined) bad('gpuModel', 'a catalog GPU model');
    if (!Number.isInteger(t.gpuCount) || t.gpuCount < 0) bad('gpuCount', 'an integer ≥ 0');
    if (t.migCapable && !(model?.migCapable ?? false)) bad('migCapable', `false (${t.gpuModel} has no MIG)`);
    if (!(t.hostCpuMilli >= 0)) bad('hostCpuMilli', '≥ 0');
    if (!(t.hostMemoryMiB >= 0)) bad('hostMemoryMiB', '≥ 0');
    if (!(t.pricePerHour >= 0)) bad('pricePerHour', '≥ 0');
    if (!Number.isInteger(t.minCount) || t.minCount < 0) bad('minCount', 'an integer ≥ 0');
    if (!Number.isInteger(t.maxCount) || t.maxCount < t.minCount)
      bad('maxCount', `an integer ≥ minCount (${t.minCount})`);
    if (!(t.bootSeconds >= 0)) bad('bootSeconds', '≥ 0');
  }
}

/** The node `template` gives once booted, named `name`: empty, its GPUs out of MIG mode. */
export function templateNode(template: NodeTemplate, name: string): ClusterNode {
  const model = findGpuModel(template.gpuModel);
  return {
    name,
    hostCpuMilli: template.hostCpuMilli,
    hostMemoryMiB: template.hostMemoryMiB,
    gpus: Array.from({ length: template.gpuCount }, (_, index) => ({
      index,
      uuid: `GPU-${name}-${index}`,
      model: model?.name ?? template.gpuModel,
      gpuMemoryMiB: model?.gpuMemoryMiB ?? 0,
      migEnabled: false,
      schedulable: true,
    })),
  };
}

/**
 * The name of the `ordinal`-th (0-based) node a scale-up would add of `template`, before the provider
 * names it: `<template>+<ordinal>`. No node of the pool or the snapshot may have a name starting with
 * `<template>+` (autoscale() refuses it); a caller naming booting nodes that have no Node yet uses
 * another form (`gpushare autoscaler`: `<template>~<n>`).
 */
export function newNodeName(template: NodeTemplate, ordinal: number): string {
  return `${template.name}+${ordinal}`;
}
