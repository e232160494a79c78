/**
 * Where the device plugin learns whether each GPU is healthy: a small port, and an in-memory
 * implementation that the node agent feeds from its GPU health poller (and tests set directly).
 */

/** Health of the node's GPUs by index, with change notification. */
export interface GpuHealthSource {
  /** True when GPU `gpuIndex` is healthy now; false for an unknown index. */
  isHealthy(gpuIndex: number): boolean;
  /** Calls `listener` after every change; returns a function that stops the calls. */
  subscribe(listener: () => void): () => void;
}

/** A GpuHealthSource whose state is set by its owner. */
export interface GpuHealthState extends GpuHealthSource {
  /** Sets GPU `gpuIndex` healthy or not; listeners are called only when the value changes. */
  set(gpuIndex: number, healthy: boolean): void;
}

/** A GpuHealthState with `initial` (index → healthy). */
export function createGpuHealthState(initial: Iterable<readonly [number, boolean]>): GpuHealthState {
  const health = new Map<number, boolean>(initial);
  const listeners = new Set<() => void>();
  return {
    isHealthy: (gpuIndex) => health.get(gpuIndex) === true,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    set(gpuIndex, healthy) {
      if (health.get(gpuIndex) === healthy) return;
      health.set(gpuIndex, healthy);
      for (const listener of [...listeners]) listener();
    },
  };
}
