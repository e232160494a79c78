import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePodListCsv, readNodeListFile, readPodListFile } from './alibaba-csv.js';
import { feasibleGpuModels, PRODUCTION_SPEC_MIX } from './gpu-spec-variant.js';
import { formatPodListCsv } from './pod-list-csv-writer.js';
import { synthesizeVariant, traceShares, type VariantSpec } from './synthesize-variant.js';
import type { TraceNode, TracePod } from './trace-types.js';

const dataFile = (name: string): string =>
  fileURLToPath(new URL(`../../../data/alibaba-gpu-v2023/${name}`, import.meta.url));

let base: TracePod[];
let nodes: TraceNode[];

beforeAll(async () => {
  base = await readPodListFile(dataFile('openb_pod_list_default.csv'));
  nodes = await readNodeListFile(dataFile('openb_node_list_gpu_node.csv'));
});

/**
 * Recomputed here without traceShares: [CPU-only % of tasks, sharing % and multi-GPU % of GPU request, total milli].
 */
function shares(pods: readonly TracePod[]): { cpu: number; sharing: number; multi: number; total: number } {
  const gpu = (p: TracePod): number => p.gpuCount * p.gpuMilli;
  const total = pods.reduce((s, p) => s + gpu(p), 0);
  const sharing = pods.filter((p) => p.gpuCount === 1 && p.gpuMilli < 1000).reduce((s, p) => s + gpu(p), 0);
  const multi = pods.filter((p) => p.gpuCount > 1).reduce((s, p) => s + gpu(p), 0);
  return {
    cpu: (100 * pods.filter((p) => p.gpuCount === 0).length) / pods.length,
    sharing: (100 * sharing) / total,
    multi: (100 * multi) / total,
    total,
  };
}

/** Multiset of pod shapes (everything except the name), for "drawn from the base" checks. */
const shapeKey = (p: TracePod): string => JSON.stringify({ ...p, name: '' });

describe('traceShares', () => {
  it('matches the README numbers for the default pod list', () => {
    const s = traceShares(base);
    expect(s.pods).toBe(8152);
    expect(s.gpuTasks).toBe(7064);
    expect(s.cpuOnlyPct.toFixed(1)).toBe('13.3');
    expect(s.totalGpuMilli).toBe(6_086_800);
    expect(s.sharingGpuPct.toFixed(1)).toBe('28.5');
    expect(s.multiGpuPct.toFixed(1)).toBe('7.3');
    expect(s.constrainedPct).toBe(0);
  });
});

describe('synthesizeVariant on the default pod list', () => {
  it.each([0, 3.7, 5, 10, 25, 30, 100])('cpu:%s gives that share of CPU-only tasks, same pod count', (pct) => {
    const out = synthesizeVariant(base, nodes, { kind: 'cpu', cpuOnlyPct: pct }, 7);
    expect(out).toHaveLength(base.length);
    expect(Math.abs(shares(out).cpu - pct)).toBeLessThanOrEqual(1.5);
    expect(out.filter((p) => p.gpuCount === 0)).toHaveLength(Math.round((base.length * pct) / 100));
    const known = new Set(base.map(shapeKey));
    expect(out.every((p) => known.has(shapeKey(p)))).toBe(true);
  });

  it.each([0, 20, 40, 60, 80, 100])(
    'gpushare:%s gives that share of GPU request, total ≈ base, CPU-only kept',
    (pct) => {
      const out = synthesizeVariant(base, nodes, { kind: 'gpushare', sharingGpuPct: pct }, 7);
      const s = shares(out);
      expect(Math.abs(s.sharing - pct)).toBeLessThanOrEqual(1.5);
      expect(Math.abs(s.total - 6_086_800)).toBeLessThanOrEqual(8000);
      const cpuOnly = (pods: readonly TracePod[]): string[] => pods.filter((p) => p.gpuCount === 0).map(shapeKey);
      expect(cpuOnly(out)).toEqual(cpuOnly(base));
    },
  );

  it.each([0, 20, 30, 40, 50, 100])('multigpu:%s gives that share of GPU request, total ≈ base', (pct) => {
    const out = synthesizeVariant(base, nodes, { kind: 'multigpu', multiGpuPct: pct }, 7);
    const s = shares(out);
    expect(Math.abs(s.multi - pct)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(s.total - 6_086_800)).toBeLessThanOrEqual(8000);
  });

  it('keeps the base when asked for its own share (no resampling needed)', () => {
    const own = synthesizeVariant(base, nodes, { kind: 'cpu', cpuOnlyPct: (100 * 1088) / 8152 }, 3);
    expect(own.map(shapeKey)).toEqual(base.map(shapeKey));
  });

  it.each([0, 5.2, 20, 33.8, 100])(
    'gpuspec:%s constrains exactly round(pct% of GPU tasks), each with a feasible model',
    (pct) => {
      const out = synthesizeVariant(base, nodes, { kind: 'gpuspec', constrainedPct: pct }, 7);
      expect(out).toHaveLength(base.length);
      const gpuTasks = base.filter((p) => p.gpuCount > 0).length;
      const constrained = out.filter((p) => p.gpuSpec !== '');
      expect(constrained).toHaveLength(Math.round((pct / 100) * gpuTasks));
      expect(Math.abs((100 * constrained.length) / gpuTasks - pct)).toBeLessThanOrEqual(1.5);
      const models = new Set(nodes.map((n) => n.gpuModel));
      for (const p of constrained) {
        expect(p.gpuCount).toBeGreaterThan(0);
        expect(p.allowedGpuModels.join('|')).toBe(p.gpuSpec);
        expect(p.allowedGpuModels.length).toBeGreaterThanOrEqual(1);
        expect(p.allowedGpuModels.length).toBeLessThanOrEqual(3);
        expect(new Set(p.allowedGpuModels).size).toBe(p.allowedGpuModels.length);
        expect(p.allowedGpuModels.every((m) => models.has(m))).toBe(true);
        // At least one allowed model has a node that could host the task when empty.
        const hosts = nodes.some(
          (n) =>
            p.allowedGpuModels.includes(n.gpuModel ?? '') &&
            n.gpuCount >= p.gpuCount &&
            n.cpuMilli >= p.cpuMilli &&
            n.hostMemoryMiB >= p.hostMemoryMiB,
        );
        expect(hosts).toBe(true);
        expect(feasibleGpuModels(p, nodes).some((m) => p.allowedGpuModels.includes(m))).toBe(true);
      }
      // Everything but the spec is the base.
      const strip = (p: TracePod): TracePod => ({ ...p, gpuSpec: '', allowedGpuModels: [] });
      expect(out.map(strip)).toEqual(base.map(strip));
    },
  );

  it.each([5, 10, 20, 25, 33])(
    'prodspec:%s constrains round(pct%% of GPU tasks) with the production model sets in their shares',
    (pct) => {
      const out = synthesizeVariant(base, nodes, { kind: 'prodspec', constrainedPct: pct }, 7);
      const gpuTasks = base.filter((p) => p.gpuCount > 0).length;
      const constrained = out.filter((p) => p.gpuSpec !== '');
      expect(constrained).toHaveLength(Math.round((pct / 100) * gpuTasks));
      const sets = new Map(PRODUCTION_SPEC_MIX.map((s) => [s.models.join('|'), s.pct]));
      const counts = new Map<string, number>();
      for (const p of constrained) {
        expect(sets.has(p.gpuSpec)).toBe(true);
        expect(feasibleGpuModels(p, nodes).some((m) => p.allowedGpuModels.includes(m))).toBe(true);
        counts.set(p.gpuSpec, (counts.get(p.gpuSpec) ?? 0) + 1);
      }
      // Each set's share is within 4 points of the mix (binomial SD at 5% of 7064 tasks ≈ 2.6 points for T4).
      for (const [set, want] of sets) {
        expect(Math.abs((100 * (counts.get(set) ?? 0)) / constrained.length - want)).toBeLessThanOrEqual(4);
      }
      const strip = (p: TracePod): TracePod => ({ ...p, gpuSpec: '', allowedGpuModels: [] });
      expect(out.map(strip)).toEqual(base.map(strip));
    },
  );

  it('prodspec gives an 8-GPU task only a set with an 8-GPU model (never T4 or P100 alone)', () => {
    const out = synthesizeVariant(base, nodes, { kind: 'prodspec', constrainedPct: 100 }, 3);
    const eight = out.filter((p) => p.gpuCount === 8);
    expect(eight).toHaveLength(44);
    for (const p of eight) expect(['T4', 'P100']).not.toContain(p.gpuSpec);
    expect(new Set(eight.map((p) => p.gpuSpec)).size).toBeGreaterThan(1);
  });

  it('gpuspec favours models with many GPUs (G2 has 71% of them)', () => {
    const out = synthesizeVariant(base, nodes, { kind: 'gpuspec', constrainedPct: 100 }, 11);
    const withG2 = out.filter((p) => p.allowedGpuModels.includes('G2')).length;
    const withA10 = out.filter((p) => p.allowedGpuModels.includes('A10')).length;
    expect(withG2 / out.filter((p) => p.gpuCount > 0).length).toBeGreaterThan(0.6);
    expect(withA10).toBeLessThan(withG2 / 50);
  });

  it('gpuspec draws the feasible model only among models that can host the task', () => {
    // Only the 4-GPU T4 node can host a 4-GPU task; the 8-GPU G2 node has too little memory.
    const tiny: TraceNode[] = [
      { name: 'n0', cpuMilli: 64000, hostMemoryMiB: 1024, gpuCount: 8, gpuModel: 'G2' },
      { name: 'n1', cpuMilli: 64000, hostMemoryMiB: 262144, gpuCount: 4, gpuModel: 'T4' },
    ];
    const pod: TracePod = {
      name: 'p',
      cpuMilli: 8000,
      hostMemoryMiB: 65536,
      gpuCount: 4,
      gpuMilli: 1000,
      allowedGpuModels: [],
      gpuSpec: '',
      qos: 'LS',
      creationTimeSeconds: 0,
      deletionTimeSeconds: 10,
    };
    expect(feasibleGpuModels(pod, tiny)).toEqual(['T4']);
    for (let seed = 0; seed < 20; seed++) {
      const [out] = synthesizeVariant([pod], tiny, { kind: 'gpuspec', constrainedPct: 100 }, seed);
      expect(out!.allowedGpuModels).toContain('T4');
    }
  });

  it.each<VariantSpec>([
    { kind: 'cpu', cpuOnlyPct: 25 },
    { kind: 'gpushare', sharingGpuPct: 60 },
    { kind: 'multigpu', multiGpuPct: 40 },
    { kind: 'gpuspec', constrainedPct: 20 },
    { kind: 'prodspec', constrainedPct: 20 },
  ])('$kind: same seed gives identical output, another seed a different one', (spec) => {
    const a = synthesizeVariant(base, nodes, spec, 5);
    const b = synthesizeVariant(base, nodes, spec, 5);
    const c = synthesizeVariant(base, nodes, spec, 6);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('names pods openb-pod-0000.. in order, zero-padded', () => {
    const out = synthesizeVariant(base, nodes, { kind: 'gpushare', sharingGpuPct: 100 }, 1);
    expect(out.length).toBeGreaterThan(10_000);
    out.forEach((p, i) => expect(p.name).toBe(`openb-pod-${String(i).padStart(5, '0')}`));
    const small = synthesizeVariant(base, nodes, { kind: 'multigpu', multiGpuPct: 40 }, 1);
    expect(small.length).toBeLessThan(10_000);
    small.forEach((p, i) => expect(p.name).toBe(`openb-pod-${String(i).padStart(4, '0')}`));
  });
});

describe('formatPodListCsv', () => {
  it.each<VariantSpec>([
    { kind: 'cpu', cpuOnlyPct: 25 },
    { kind: 'gpushare', sharingGpuPct: 60 },
    { kind: 'gpuspec', constrainedPct: 33 },
  ])('round-trips a $kind variant through parsePodListCsv', (spec) => {
    const pods = synthesizeVariant(base, nodes, spec, 2);
    const text = formatPodListCsv(pods);
    expect(text.split('\n')[0]).toBe(
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time',
    );
    expect(text.endsWith('\n')).toBe(true);
    expect(parsePodListCsv(text, 'synth.csv')).toEqual(pods);
  });

  it('round-trips the default pod list, and writes Running, qos, 0 times and scheduled = created', () => {
    expect(parsePodListCsv(formatPodListCsv(base), 'x.csv')).toEqual(base);
    const pod: TracePod = {
      name: 'p-1',
      cpuMilli: 4000,
      hostMemoryMiB: 1024,
      gpuCount: 1,
      gpuMilli: 500,
      allowedGpuModels: ['G2', 'T4'],
      gpuSpec: '',
      qos: null,
      creationTimeSeconds: null,
      deletionTimeSeconds: null,
    };
    expect(
      formatPodListCsv([pod, { ...pod, name: 'p-2', qos: 'BE', creationTimeSeconds: 7, deletionTimeSeconds: 9 }]).split(
        '\n',
      ),
    ).toEqual([
      expect.any(String),
      'p-1,4000,1024,1,500,G2|T4,,Running,0,0,0',
      'p-2,4000,1024,1,500,G2|T4,BE,Running,7,9,7',
      '',
    ]);
  });

  it('rejects values that would break the CSV', () => {
    const pod = base[0]!;
    expect(() => formatPodListCsv([{ ...pod, name: 'a,b' }])).toThrow(RangeError);
    expect(() => formatPodListCsv([{ ...pod, cpuMilli: 1.5 }])).toThrow(
      "field 'cpu_milli': expected a non-negative integer, got 1.5",
    );
  });
});

describe('synthesizeVariant validation', () => {
  it.each<[VariantSpec, string]>([
    [{ kind: 'cpu', cpuOnlyPct: -1 }, "VariantSpec.cpuOnlyPct (kind 'cpu') must be a finite number in 0..100, got -1"],
    [
      { kind: 'gpushare', sharingGpuPct: 100.5 },
      "VariantSpec.sharingGpuPct (kind 'gpushare') must be a finite number in 0..100, got 100.5",
    ],
    [
      { kind: 'multigpu', multiGpuPct: Number.NaN },
      "VariantSpec.multiGpuPct (kind 'multigpu') must be a finite number in 0..100, got NaN",
    ],
    [
      { kind: 'gpuspec', constrainedPct: Number.POSITIVE_INFINITY },
      "VariantSpec.constrainedPct (kind 'gpuspec') must be a finite number in 0..100, got Infinity",
    ],
    [
      { kind: 'cpu' } as unknown as VariantSpec,
      "VariantSpec.cpuOnlyPct (kind 'cpu') must be a finite number in 0..100, got undefined",
    ],
    [
      { kind: 'mig', pct: 5 } as unknown as VariantSpec,
      'VariantSpec.kind must be one of cpu, gpushare, multigpu, gpuspec, prodspec, got mig',
    ],
  ])('%j → RangeError', (spec, message) => {
    expect(() => synthesizeVariant(base, nodes, spec, 1)).toThrow(RangeError);
    expect(() => synthesizeVariant(base, nodes, spec, 1)).toThrow(message);
  });

  it('rejects a non-integer seed', () => {
    expect(() => synthesizeVariant(base, nodes, { kind: 'cpu', cpuOnlyPct: 5 }, 1.5)).toThrow(RangeError);
  });

  it('says which class is missing when the base has none to draw from', () => {
    const gpuOnly = base.filter((p) => p.gpuCount > 0);
    expect(() => synthesizeVariant(gpuOnly, nodes, { kind: 'cpu', cpuOnlyPct: 10 }, 1)).toThrow(
      'the base pod list has no CPU-only tasks to draw from',
    );
    expect(synthesizeVariant(gpuOnly, nodes, { kind: 'cpu', cpuOnlyPct: 0 }, 1)).toHaveLength(gpuOnly.length);
  });
});
