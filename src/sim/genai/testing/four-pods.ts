/**
 * A four-pod trace of 240 minutes (quarters of 60) on which packing by use does something of each
 * kind, with GPUs of 100 MiB (pack-by-use.test.ts and the report's tests):
 *
 * - `a`: 40 MiB, 10% busy throughout; `c`: 55 MiB, 10% busy throughout;
 * - `b`: 42 MiB in the first quarter, then 50 MiB (it grows: a headroom of 0 overruns `b` + `c` in
 *   the rehearsal, 5% does not); 10% busy in the first 10 minutes, then idle;
 * - `d`: 10 MiB, 95% busy in the first 10 minutes (with `a` or `b` that is over 100% in more than
 *   1% of the minutes, so it gets a GPU of its own), then idle.
 */
import { fixtureTrace, repeat } from './genai-fixtures.js';

/** The GPU model of the fixture. */
export const SMALL_GPU = { name: 'small', gpuMemoryMiB: 100 } as const;

/** The trace. */
export const FOUR_PODS = fixtureTrace({
  a: { duty: repeat(10, 240), memoryMiB: repeat(40, 240) },
  b: { duty: [...repeat(10, 10), ...repeat(0, 230)], memoryMiB: [...repeat(42, 60), ...repeat(50, 180)] },
  c: { duty: repeat(10, 240), memoryMiB: repeat(55, 240) },
  d: { duty: [...repeat(95, 10), ...repeat(0, 230)], memoryMiB: repeat(10, 240) },
});
