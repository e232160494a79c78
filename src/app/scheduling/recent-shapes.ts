/**
 * The shapes of the most recent submits (per-GPU milli-GPU and GPU count): the target workload the
 * scheduler measures fragmentation against (the `default` policy, docs/default-policy.md) and the
 * cluster fragmentation metric reports (docs/metrics.md). Kept from the store at start and from
 * every submit after.
 */
import type { GpuRequest, TargetWorkload, TaskShape } from '../../core/index.js';
import { RECENT_SHAPES_KEPT, shapeOfJob, targetWorkloadOf } from './cluster-usage.js';

/** The last RECENT_SHAPES_KEPT submit shapes and the workload they make. */
export class RecentShapes {
  private readonly shapes: TaskShape[] = [];
  private workload: TargetWorkload | null = null;

  /** @param initial requests of the newest stored jobs, oldest first */
  constructor(initial: readonly GpuRequest[] = []) {
    for (const gpu of initial) this.add(gpu);
  }

  /** Records the request of a submit (MIG requests are not part of the workload). */
  add(gpu: GpuRequest): void {
    const shape = shapeOfJob(gpu);
    if (!shape) return;
    this.shapes.push(shape);
    if (this.shapes.length > RECENT_SHAPES_KEPT) this.shapes.shift();
    this.workload = null;
  }

  /** The target workload of the recent shapes (the prior shapes while there are none); rebuilt only after a submit. */
  targetWorkload(): TargetWorkload {
    return (this.workload ??= targetWorkloadOf(this.shapes));
  }
}
