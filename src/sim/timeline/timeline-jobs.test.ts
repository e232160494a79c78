import { describe, expect, it } from 'vitest';
import { parsePodListCsv } from '../traces/alibaba-csv.js';
import { readScheduledTimes } from './scheduled-times.js';
import { buildTimelineJobs } from './timeline-jobs.js';

const CSV = [
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time',
  'p-b,1000,1024,1,500,,BE,Running,1000,5000,1100',
  'p-a,1000,1024,1,1000,,LS,Running,1000,2000,1500',
  'p-c,1000,1024,1,1000,,Burstable,Pending,3000,3100,',
  'p-d,1000,1024,1,1000,,Guaranteed,Failed,200,100,150',
  'p-e,1000,1024,0,0,,Weird,Succeeded,1800,1900,1900',
].join('\r\n');

describe('buildTimelineJobs', () => {
  it('reads scheduled_time per name', () => {
    expect(readScheduledTimes(CSV)).toEqual(
      new Map([
        ['p-b', 1100],
        ['p-a', 1500],
        ['p-c', null],
        ['p-d', 150],
        ['p-e', 1900],
      ]),
    );
    expect(readScheduledTimes('name,cpu_milli\nx,1\n')).toEqual(new Map([['x', null]]));
  });

  it('reads decimal epoch times of a history export (ms precision)', () => {
    const text =
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,scheduled_time,deletion_time,tenant\n' +
      'job-1,0,0,1,500,1712345678.125,1712345680.5,1712345740.75,team-a\n';
    expect(readScheduledTimes(text)).toEqual(new Map([['job-1', 1712345680.5]]));
    const [pod] = parsePodListCsv(text, 'h.csv');
    const w = buildTimelineJobs([pod!], readScheduledTimes(text), 1);
    expect(w.jobs.map((j) => [j.name, j.arrivalSeconds, j.durationSeconds])).toEqual([['job-1', 0, 60.25]]);
  });

  it('orders by arrival then name, compresses gaps, keeps durations and skips bad times', () => {
    const w = buildTimelineJobs(parsePodListCsv(CSV, 'pods.csv'), readScheduledTimes(CSV), 4);
    expect(w.skippedMissingTimes).toBe(1);
    expect(w.skippedNegativeDuration).toBe(1);
    expect(w.jobs.map((j) => [j.id, j.name, j.arrivalSeconds, j.durationSeconds, j.priority])).toEqual([
      [0, 'p-a', 0, 500, 1000],
      [1, 'p-b', 0, 3900, 100],
      [2, 'p-e', 200, 0, 500],
    ]);
  });

  it('rejects a speedup that is not > 0', () => {
    expect(() => buildTimelineJobs([], new Map(), 0)).toThrow(RangeError);
  });
});
