import { describe, it, expect } from 'vitest';
import { nodeCapacityFragmentationMilli } from './capacity-fragmentation.js';
import { nodeFragmentationMilli } from './node-fragmentation.js';
import { buildTargetWorkload, type TaskShape } from './target-workload.js';

const shape = (
  cpuMilli: number,
  gpuMilli: number,
  gpuCount = 1,
  allowedGpuModels: readonly string[] = [],
): TaskShape => ({ cpuMilli, gpuMilli, gpuCount, allowedGpuModels });
/** M with a single type of weight 1. */
const only = (t: TaskShape) => buildTargetWorkload([t]);
const V100 = 'V100M32';

describe('nodeCapacityFragmentationMilli: one-GPU types idle − min(idle, n·d), n = min(Σ⌊g/d⌋, ⌊cpu/c⌋)', () => {
  it('d=500, c=4000 on [1000, 1000] with 16 vCPU: copies = min(4, 4) = 4, usable 2000, fragment 0', () => {
    expect(nodeCapacityFragmentationMilli(16000, V100, [1000, 1000], only(shape(4000, 500)))).toBe(0);
  });

  it('same with 8 vCPU: copies = min(4, 2) = 2, usable 1000, fragment 1000', () => {
    expect(nodeCapacityFragmentationMilli(8000, V100, [1000, 1000], only(shape(4000, 500)))).toBe(1000);
  });

  it('d=810 on [1000, 1000]: one slot per GPU, copies 2, usable 1620, fragment 380', () => {
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 1000], only(shape(4000, 810)))).toBe(380);
  });

  it('a whole 2-GPU type counts by GPUs alone: partly used GPUs when 2 GPUs fit, else all idle GPU', () => {
    // Three whole GPUs host one copy; the third whole GPU is not fragment (smaller types use it).
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 1000, 1000], only(shape(16000, 1000, 2)))).toBe(0);
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 1000, 600], only(shape(16000, 1000, 2)))).toBe(600);
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 600, 0], only(shape(16000, 1000, 2)))).toBe(1600);
    // CPU is FGD's term's business here: not enough CPU still counts the GPUs as usable.
    expect(nodeCapacityFragmentationMilli(8000, V100, [1000, 1000], only(shape(16000, 1000, 2)))).toBe(0);
  });

  it(
    'slots are counted per GPU: d=400 on [1000, 700, 300] → 2 + 1 + 0 = 3 copies, usable 1200 of 2000, ' +
      'fragment 800',
    () => {
      expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 700, 300], only(shape(1000, 400)))).toBe(800);
    },
  );

  it('a type asking no CPU is limited by GPU slots only', () => {
    // d=300 on [1000, 1000] with 0 free CPU: 3 + 3 = 6 copies, usable 1800, fragment 200.
    expect(nodeCapacityFragmentationMilli(0, V100, [1000, 1000], only(shape(0, 300)))).toBe(200);
  });

  it('no CPU for even one copy: everything idle is fragment', () => {
    expect(nodeCapacityFragmentationMilli(3999, V100, [1000, 1000], only(shape(4000, 500)))).toBe(2000);
  });

  it('a CPU-only type: all idle GPU is fragment, whatever the CPU', () => {
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 600], only(shape(4000, 0, 0)))).toBe(1600);
    expect(nodeCapacityFragmentationMilli(0, V100, [1000, 600], only(shape(4000, 0, 0)))).toBe(1600);
  });

  it('a type whose model is not allowed on the node (or a node without model): all idle', () => {
    const t4Only = only(shape(1000, 500, 1, ['T4']));
    expect(nodeCapacityFragmentationMilli(64000, V100, [1000, 1000], t4Only)).toBe(2000);
    expect(nodeCapacityFragmentationMilli(64000, null, [1000, 1000], t4Only)).toBe(2000);
    // Allowed: back to the slot count (4 copies, usable 2000).
    expect(nodeCapacityFragmentationMilli(64000, 'T4', [1000, 1000], t4Only)).toBe(0);
    expect(
      nodeCapacityFragmentationMilli(64000, 'T4', [1000, 1000], only(shape(1000, 500, 1, ['V100M32', 'T4']))),
    ).toBe(0);
  });

  it('no idle GPU: 0, for every kind of type', () => {
    for (const t of [shape(4000, 500), shape(4000, 0, 0), shape(1000, 500, 1, ['T4']), shape(16000, 1000, 2)]) {
      expect(nodeCapacityFragmentationMilli(64000, V100, [0, 0], only(t))).toBe(0);
      expect(nodeCapacityFragmentationMilli(0, V100, [0, 0], only(t))).toBe(0);
    }
    expect(nodeCapacityFragmentationMilli(64000, null, [], only(shape(4000, 500)))).toBe(0);
  });

  it('weights the per-type fragments by popularity', () => {
    // Two types of equal count (p = 0.5 each) on [1000, 600] with 16 vCPU, idle 1600:
    //   d=500, c=4000: slots 2 + 1 = 3, CPU allows 4 → 3 copies, usable 1500, fragment 100
    //   d=1000, c=8000: slots 1 + 0 = 1, CPU allows 2 → 1 copy, usable 1000, fragment 600
    const workload = buildTargetWorkload([shape(4000, 500), shape(8000, 1000)]);
    expect(nodeCapacityFragmentationMilli(16000, V100, [1000, 600], workload)).toBe(0.5 * 100 + 0.5 * 600);
  });

  it('differs from FGD when CPU allows only one more copy: FGD 0, capacity-aware 1500', () => {
    // d=500, c=4000 on [1000, 1000] with exactly 4 vCPU free. FGD asks whether one more copy fits:
    // it does (CPU 4000 ≥ 4000, a GPU hosts 500), and no GPU is partial, so F_FGD = 0.
    // The capacity measure: copies = min(4 slots, ⌊4000/4000⌋ = 1) = 1, usable 500 of 2000, fragment 1500.
    const workload = only(shape(4000, 500));
    expect(nodeFragmentationMilli(4000, V100, [1000, 1000], workload)).toBe(0);
    expect(nodeCapacityFragmentationMilli(4000, V100, [1000, 1000], workload)).toBe(1500);
  });

  it('agrees with FGD where the two definitions coincide (nothing fits, or CPU-only / disallowed types)', () => {
    const cases: [number, string | null, number[], TaskShape][] = [
      [64000, V100, [1000, 1000], shape(4000, 0, 0)],
      [64000, V100, [700, 300], shape(1000, 1000)],
      [1000, V100, [1000, 1000], shape(4000, 500)],
      [64000, V100, [1000, 1000], shape(1000, 500, 1, ['T4'])],
    ];
    for (const [cpu, model, gpus, t] of cases) {
      expect(nodeCapacityFragmentationMilli(cpu, model, gpus, only(t))).toBe(
        nodeFragmentationMilli(cpu, model, gpus, only(t)),
      );
    }
  });

  it('accepts an Int32Array and does not change it', () => {
    const gpus = Int32Array.from([1000, 1000]);
    expect(nodeCapacityFragmentationMilli(8000, V100, gpus, only(shape(4000, 500)))).toBe(1000);
    expect(Array.from(gpus)).toEqual([1000, 1000]);
  });
});
