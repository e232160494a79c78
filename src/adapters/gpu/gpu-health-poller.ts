// Polls a GpuInventory and reports what changed since the last poll, by GPU UUID.
import type { GpuInventory, InventoryGpu } from '../../app/ports/gpu-inventory.js';

/**
 * One change between two polls. `appeared`: a UUID not present at the previous poll (new, or back
 * after vanishing). `vanished`: present before, missing now; `gpu` is the last record with
 * healthy=false, healthReason `vanished` and no measurements. `health`: `healthy` or
 * `healthReason` differs from the previous report (including all GPUs turning unhealthy because
 * `list()` failed, and back).
 */
export interface GpuChange {
  kind: 'appeared' | 'vanished' | 'health';
  uuid: string;
  /** The GPU as now reported. */
  gpu: InventoryGpu;
  /** The GPU as last reported; null for a first appearance. */
  previous: InventoryGpu | null;
}

/** Options of {@link createGpuHealthPoller}. */
export interface GpuHealthPollerOptions {
  inventory: GpuInventory;
  /** Delay between the end of one poll and the start of the next, in ms (> 0). */
  intervalMs: number;
  /**
   * Called after the first poll, and after each later poll that changed something, with every GPU
   * known (present ones by index, then vanished ones) and the changes. Awaited before the next poll.
   */
  onChange(list: InventoryGpu[], changes: GpuChange[]): void | Promise<void>;
  /** Called when onChange throws or rejects; such errors are otherwise ignored and polling goes on. */
  onListenerError?(error: unknown): void;
}

/** A running poller. */
export interface GpuHealthPoller {
  /** Polls now (serialised with the timer's polls) and resolves when that poll has been reported. */
  pollNow(): Promise<void>;
  /** Stops polling; resolves once any poll in flight has finished. Idempotent. */
  stop(): Promise<void>;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function sameHealth(a: InventoryGpu, b: InventoryGpu): boolean {
  return a.healthy === b.healthy && a.healthReason === b.healthReason;
}

/**
 * Starts polling `inventory.list()`: once at once, then every `intervalMs` after the previous poll
 * ends (a setTimeout chain, so polls never overlap). Each poll is compared with the last by UUID
 * and reported as {@link GpuChange}s. When `list()` rejects, every known GPU is reported unhealthy
 * with the error message as reason (present-set unchanged, so the next good poll flips them back).
 * A vanished GPU stays in the reported list, unhealthy, until it reappears. Throws RangeError when
 * intervalMs is not a positive finite number.
 */
export function createGpuHealthPoller(options: GpuHealthPollerOptions): GpuHealthPoller {
  const { inventory, intervalMs, onChange } = options;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
    throw new RangeError(`intervalMs must be a positive number of milliseconds, got ${intervalMs}`);
  }
  /** Last reported record per UUID, in report order (present then vanished). */
  let known = new Map<string, InventoryGpu>();
  /** UUIDs present at the last successful poll. */
  let present = new Set<string>();
  let first = true;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let chain: Promise<void> = Promise.resolve();

  const compare = (current: InventoryGpu[]): { list: InventoryGpu[]; changes: GpuChange[] } => {
    const changes: GpuChange[] = [];
    const next = new Map<string, InventoryGpu>();
    for (const gpu of current) {
      const previous = known.get(gpu.uuid) ?? null;
      if (!present.has(gpu.uuid)) changes.push({ kind: 'appeared', uuid: gpu.uuid, gpu, previous });
      else if (previous && !sameHealth(previous, gpu)) changes.push({ kind: 'health', uuid: gpu.uuid, gpu, previous });
      next.set(gpu.uuid, gpu);
    }
    for (const [uuid, previous] of known) {
      if (next.has(uuid)) continue;
      if (present.has(uuid)) {
        const gpu: InventoryGpu = {
          ...previous,
          healthy: false,
          healthReason: 'vanished',
          utilizationGpuPct: null,
          memoryUsedMiB: null,
        };
        changes.push({ kind: 'vanished', uuid, gpu, previous });
        next.set(uuid, gpu);
      } else {
        next.set(uuid, previous);
      }
    }
    known = next;
    present = new Set(current.map((g) => g.uuid));
    return { list: [...next.values()], changes };
  };

  const failAll = (error: unknown): { list: InventoryGpu[]; changes: GpuChange[] } => {
    const reason = errorMessage(error);
    const changes: GpuChange[] = [];
    const next = new Map<string, InventoryGpu>();
    for (const [uuid, previous] of known) {
      const gpu: InventoryGpu =
        previous.healthy || previous.healthReason !== 'vanished'
          ? { ...previous, healthy: false, healthReason: reason, utilizationGpuPct: null, memoryUsedMiB: null }
          : previous;
      if (!sameHealth(previous, gpu)) changes.push({ kind: 'health', uuid, gpu, previous });
      next.set(uuid, gpu);
    }
    known = next;
    return { list: [...next.values()], changes };
  };

  const pollOnce = async (): Promise<void> => {
    let result: { list: InventoryGpu[]; changes: GpuChange[] };
    try {
      result = compare(await inventory.list());
    } catch (e) {
      result = failAll(e);
    }
    if (stopped) return;
    if (!first && result.changes.length === 0) return;
    first = false;
    try {
      await onChange(result.list, result.changes);
    } catch (e) {
      try {
        options.onListenerError?.(e);
      } catch {
        // A failing error handler must not stop the polling chain.
      }
    }
  };

  const enqueue = (): Promise<void> => {
    chain = chain.then(pollOnce);
    return chain;
  };

  const tick = (): void => {
    timer = null;
    void enqueue().then(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs);
    });
  };

  tick();
  return {
    pollNow: () => (stopped ? Promise.resolve() : enqueue()),
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await chain;
    },
  };
}
