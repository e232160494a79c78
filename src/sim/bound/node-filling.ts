/**
 * The pricing step of the packing bound (docs/packing-bound.md): the most valuable filling of one
 * node of a type, given a value per pod of each shape. Dynamic programming over (GPUs, CPU) that
 * keeps each GPU's 1000 milli-GPU, a whole-GPU pod's GPUs to itself, GPU-model constraints and the
 * node's CPU. Two relaxations keep it fast and the bound valid: pod CPU is rounded down to a
 * step of the node's CPU / `cpuSteps`, and a multi-GPU pod of less than whole GPUs is split into
 * per-GPU pieces whose GPUs need not differ.
 */
import { shapeAllowsModel, type BoundNodeType, type BoundShape } from './bound-types.js';

/** A filling: pods per shape index (fractional only for split multi-GPU pods) and its value. */
export interface NodeFilling {
  /** Σ value × pods over the filling (≥ 0). */
  readonly value: number;
  /** Pods of each shape index placed (absent = 0). */
  readonly pods: ReadonlyMap<number, number>;
}

/** CPU steps a node's CPU is cut into by default (pod CPU is rounded down to a step). */
export const DEFAULT_CPU_STEPS = 128;

interface SharedItem {
  readonly shape: number;
  readonly milliUnits: number;
  readonly cpuUnits: number;
  readonly value: number;
  /** Pods one item stands for: 1, or 1/k for a piece of a k-GPU pod. */
  readonly pods: number;
}
interface WholeItem {
  readonly shape: number;
  readonly gpus: number;
  readonly cpuUnits: number;
  readonly value: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The most valuable filling of one empty node of `type` (with the relaxations above), counting
 * only shapes of positive `valuePerPod` that may run there.
 * @param valuePerPod value of one pod, by shape index (e.g. GPU milli less the shape's price)
 * @param cpuSteps CPU resolution: pod CPU is rounded down to multiples of ⌈cpuMilli / cpuSteps⌉
 */
export function bestNodeFilling(
  type: BoundNodeType,
  shapes: readonly BoundShape[],
  valuePerPod: readonly number[],
  cpuSteps = DEFAULT_CPU_STEPS,
): NodeFilling {
  const cpuUnit = Math.max(1, Math.ceil(type.cpuMilli / cpuSteps));
  const cpuMax = Math.floor(type.cpuMilli / cpuUnit);
  const width = cpuMax + 1;
  const usable = shapes
    .map((shape, index) => ({ shape, index, value: valuePerPod[index]! }))
    .filter(
      ({ shape: s, value }) =>
        value > 0 &&
        s.pods > 0 &&
        s.gpuCount <= type.gpuCount &&
        s.cpuMilli <= type.cpuMilli &&
        shapeAllowsModel(s, type.gpuModel),
    );
  // Milli-GPU in units of the gcd of the shared pods' slices and 1000 (10 on the shipped traces).
  const milliUnit = usable.reduce((g, { shape: s }) => (s.gpuMilli < 1000 ? gcd(g, s.gpuMilli) : g), 1000);
  const shared: SharedItem[] = [];
  const whole: WholeItem[] = [];
  for (const { shape: s, index, value } of usable) {
    if (s.gpuMilli >= 1000) {
      whole.push({ shape: index, gpus: s.gpuCount, cpuUnits: Math.floor(s.cpuMilli / cpuUnit), value });
    } else {
      shared.push({
        shape: index,
        milliUnits: s.gpuMilli / milliUnit,
        cpuUnits: Math.floor(s.cpuMilli / (s.gpuCount * cpuUnit)),
        value: value / s.gpuCount,
        pods: 1 / s.gpuCount,
      });
    }
  }
  // One GPU: unbounded knapsack over (milli-GPU ≤ m, CPU ≤ c) of the shared items.
  const milliMax = 1000 / milliUnit;
  const gpuValue = new Float64Array((milliMax + 1) * width);
  const gpuChoice = new Int32Array((milliMax + 1) * width).fill(-1);
  for (let m = 1; m <= milliMax; m++) {
    for (let c = 0; c <= cpuMax; c++) {
      let best = 0;
      let choice = -1;
      for (let i = 0; i < shared.length; i++) {
        const item = shared[i]!;
        if (item.milliUnits > m || item.cpuUnits > c) continue;
        const candidate = gpuValue[(m - item.milliUnits) * width + c - item.cpuUnits]! + item.value;
        if (candidate > best) {
          best = candidate;
          choice = i;
        }
      }
      gpuValue[m * width + c] = best;
      gpuChoice[m * width + c] = choice;
    }
  }
  // One GPU's best with CPU ≤ c: shared pods, or one single-GPU whole pod (−2 − item index).
  const oneGpu = new Float64Array(width);
  const oneGpuChoice = new Int32Array(width).fill(-1);
  for (let c = 0; c <= cpuMax; c++) {
    oneGpu[c] = gpuValue[milliMax * width + c]!;
    whole.forEach((item, i) => {
      if (item.gpus === 1 && item.cpuUnits <= c && item.value > oneGpu[c]!) {
        oneGpu[c] = item.value;
        oneGpuChoice[c] = -2 - i;
      }
    });
  }
  // The node: j GPUs, CPU ≤ c; choice ≥ 0 = one GPU given c' CPU, < 0 = a multi-GPU whole pod.
  const gpus = type.gpuCount;
  const nodeValue = new Float64Array((gpus + 1) * width);
  const nodeChoice = new Int32Array((gpus + 1) * width);
  for (let j = 1; j <= gpus; j++) {
    for (let c = 0; c <= cpuMax; c++) {
      let best = -1;
      let choice = 0;
      for (let c1 = 0; c1 <= c; c1++) {
        const candidate = nodeValue[(j - 1) * width + c - c1]! + oneGpu[c1]!;
        if (candidate > best) {
          best = candidate;
          choice = c1;
        }
      }
      whole.forEach((item, i) => {
        if (item.gpus < 2 || item.gpus > j || item.cpuUnits > c) return;
        const candidate = nodeValue[(j - item.gpus) * width + c - item.cpuUnits]! + item.value;
        if (candidate > best) {
          best = candidate;
          choice = -1 - i;
        }
      });
      nodeValue[j * width + c] = best;
      nodeChoice[j * width + c] = choice;
    }
  }
  const pods = new Map<number, number>();
  const add = (shape: number, count: number): void => void pods.set(shape, (pods.get(shape) ?? 0) + count);
  let j = gpus;
  let c = cpuMax;
  while (j > 0) {
    const choice = nodeChoice[j * width + c]!;
    if (choice < 0) {
      const item = whole[-1 - choice]!;
      add(item.shape, 1);
      j -= item.gpus;
      c -= item.cpuUnits;
      continue;
    }
    const gpuPick = oneGpuChoice[choice]!;
    if (gpuPick <= -2) add(whole[-2 - gpuPick]!.shape, 1);
    else {
      let m = milliMax;
      let budget = choice;
      for (let pick = gpuChoice[m * width + budget]!; pick >= 0; pick = gpuChoice[m * width + budget]!) {
        const item = shared[pick]!;
        add(item.shape, item.pods);
        m -= item.milliUnits;
        budget -= item.cpuUnits;
      }
    }
    j -= 1;
    c -= choice;
  }
  return { value: nodeValue[gpus * width + cpuMax]!, pods };
}
