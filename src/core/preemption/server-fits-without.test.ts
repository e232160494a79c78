import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../model/errors.js';
import { SeededRng, type Rng } from '../random/rng.js';
import type { GpuDevice } from '../model/gpu-device.js';
import type { JobRequest } from '../model/request.js';
import { OneNodeCluster } from '../testing/one-node-cluster.js';
import { gpu, job, migGpu, placeAll, server, snapshot } from './testing/fixtures.js';

/** A100 ×3 (mps, one exclusive), T4 (timeslice), A100 in MIG mode with three instances. */
const GPUS: readonly GpuDevice[] = [gpu(0), gpu(1), gpu(2), gpu(3, 'T4'), migGpu(4), gpu(5)];
const RUNNING: readonly JobRequest[] = [
  job(1, { gpuMilli: 500, gpuMemoryMiB: 30_000 }, { cpuMilli: 8_000, hostMemoryMiB: 16_384 }),
  job(2, { gpuMilli: 300, gpuMemoryMiB: 20_000 }),
  job(3, { gpuMilli: 600, gpuCount: 2 }),
  job(4, { gpuMilli: 1000, gpuMemoryMiB: 40_000 }, { cpuMilli: 4_000 }),
  job(5, { gpuMilli: 400, gpuMemoryMiB: 4_096, mode: 'timeslice' }),
  job(6, { gpuMilli: 500, gpuMemoryMiB: 30_000, mode: 'mig' }),
  job(7, { gpuMilli: 200, gpuMemoryMiB: 15_000, mode: 'mig' }),
  job(8, { gpuMilli: 100, gpuMemoryMiB: 5_000, mode: 'mig' }),
];
const TRIALS: readonly JobRequest[] = [
  job(90, { gpuMilli: 1000 }),
  job(91, { gpuMilli: 1000, gpuCount: 3 }),
  job(92, { gpuMilli: 800 }),
  job(93, { gpuMilli: 1000, mode: 'mig' }),
  job(94, { gpuMilli: 500, gpuMemoryMiB: 40_000, mode: 'mig' }),
  job(95, { gpuMilli: 900, mode: 'timeslice' }),
  job(96, { gpuMilli: 100 }, { cpuMilli: 60_000 }),
];

/** Every subset of the running jobs' ids, plus ids that hold nothing. */
function victimSets(): number[][] {
  const ids = RUNNING.map((j) => j.id);
  const sets: number[][] = [];
  for (let mask = 0; mask < 1 << ids.length; mask++) sets.push(ids.filter((_, i) => (mask >> i) & 1));
  return [...sets, [42], [1, 1, 42]];
}

function busyServer(rng?: Rng): OneNodeCluster {
  const s = rng
    ? new OneNodeCluster(GPUS, { hostCpuMilli: 64_000, hostMemoryMiB: 256 * 1024, timesliceOvercommitRatio: 1, rng })
    : server(GPUS);
  placeAll(s, RUNNING);
  return s;
}

/** The real thing: release the victims on a copy of the server, then try the job. */
function placesAfterRelease(victims: readonly number[], trial: JobRequest): boolean {
  const s = busyServer();
  for (const id of victims) s.release(id);
  return s.tryPlace(trial).kind === 'placed';
}

describe('OneNodeCluster.fitsWithout', () => {
  it('agrees with releasing the victims and placing, for every victim set and trial job (MIG included)', () => {
    const s = busyServer();
    let fits = 0;
    for (const trial of TRIALS) {
      for (const victims of victimSets()) {
        const answer = s.fitsWithout(trial, victims);
        expect(answer, `job ${trial.id} without [${victims.join(',')}]`).toBe(placesAfterRelease(victims, trial));
        if (answer) fits++;
      }
    }
    // The cases are not trivial: both answers occur.
    expect(fits).toBeGreaterThan(100);
    expect(fits).toBeLessThan(TRIALS.length * victimSets().length - 100);
  });

  it(
    'leaves no trace: usage, GPUs and held jobs identical, the rng untouched, and later placements as on a ' + 'twin',
    () => {
      let draws = 0;
      const seeded = new SeededRng(7);
      const counting: Rng = {
        nextUint32: () => {
          draws++;
          return seeded.nextUint32();
        },
        intn: (n) => {
          draws++;
          return seeded.intn(n);
        },
        nextFloat: () => {
          draws++;
          return seeded.nextFloat();
        },
      };
      const s = busyServer(counting);
      const twin = busyServer(new SeededRng(7));
      const before = snapshot(s);
      const drawsBefore = draws;
      for (const trial of TRIALS) for (const victims of victimSets()) s.fitsWithout(trial, victims);
      expect(snapshot(s)).toEqual(before);
      expect(draws).toBe(drawsBefore);
      for (const id of [...RUNNING.map((j) => j.id), ...TRIALS.map((j) => j.id)])
        expect(s.isHeld(id)).toBe(twin.isHeld(id));
      // The online workload learner was not fed either: the same arrivals land where they do on the twin.
      for (let i = 0; i < 40; i++) {
        const arrival = job(200 + i, { gpuMilli: [100, 250, 500, 1000][i % 4]!, mode: i % 5 === 0 ? 'mig' : 'auto' });
        expect(s.tryPlace(arrival)).toEqual(twin.tryPlace(arrival));
        if (i % 3 === 0) {
          s.release(200 + i - 1);
          twin.release(200 + i - 1);
        }
      }
      expect(snapshot(s)).toEqual(snapshot(twin));
    },
  );

  it('MIG: a 7g job fits only with both instances of a full GPU removed', () => {
    const s = server([migGpu(0)]);
    placeAll(s, [
      job(1, { gpuMilli: 500, gpuMemoryMiB: 30_000, mode: 'mig' }),
      job(2, { gpuMilli: 400, gpuMemoryMiB: 30_000, mode: 'mig' }),
    ]);
    const before = snapshot(s);
    const big = job(9, { gpuMilli: 1000, mode: 'mig' });
    expect([
      s.fitsWithout(big, []),
      s.fitsWithout(big, [1]),
      s.fitsWithout(big, [2]),
      s.fitsWithout(big, [1, 2]),
    ]).toEqual([false, false, false, true]);
    expect(snapshot(s)).toEqual(before);
  });

  it('host CPU counts: a job needing 60 cores fits only without the job holding 8', () => {
    const s = busyServer();
    const cpuHungry = TRIALS.find((j) => j.id === 96)!;
    expect(s.fitsWithout(cpuHungry, [])).toBe(false);
    expect(s.fitsWithout(cpuHungry, [4])).toBe(false);
    expect(s.fitsWithout(cpuHungry, [1])).toBe(true);
  });

  it('a GPU kept only for its jobs (vanished) stays unschedulable in the what-if: conservative, and unchanged', () => {
    const s = server([gpu(0), gpu(1)]);
    placeAll(s, [job(1, { gpuMilli: 1000 }), job(2, { gpuMilli: 1000 })]);
    s.setGpus([gpu(0)]); // GPU 1 vanished; it stays listed, unschedulable, while job 2 holds it.
    const before = snapshot(s);
    expect(s.fitsWithout(job(9), [2])).toBe(false);
    expect(s.fitsWithout(job(9), [1])).toBe(true);
    expect(snapshot(s)).toEqual(before);
    expect(s.gpus().map((g) => [g.index, g.schedulable])).toEqual([
      [0, true],
      [1, false],
    ]);
  });

  it('throws for a job that holds resources already', () => {
    const s = busyServer();
    expect(() => s.fitsWithout(RUNNING[0]!, [2])).toThrow(InvariantViolation);
  });
});
