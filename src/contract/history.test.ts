import { describe, expect, it } from 'vitest';
import { parsePodListCsv } from '../sim/traces/alibaba-csv.js';
import { csvWord, epochSeconds, historyCsvHeader, historyCsvLine, type HistoryRow } from './history.js';

const ROW: HistoryRow = {
  name: 'train',
  id: 7,
  cpuMilli: 2000,
  hostMemoryMiB: 8192,
  gpuCount: 1,
  gpuMilli: 500,
  allowedGpuModels: [],
  submittedAtMs: 1_712_345_678_125,
  firstStartedAtMs: 1_712_345_680_500,
  runMs: 60_250,
  tenant: 'team-a',
  priority: 900,
  sharingMode: 'mps',
  gpuMemoryMiB: 20_480,
  measuredGpuMemoryMiB: 10_240,
  measuredGpuUtilPct: 72.5,
};

describe('history export format', () => {
  it('writes seconds with up to 3 decimals and no trailing zeros', () => {
    expect(
      [0, 999, 1000, 1_712_345_678_125, 1_712_345_678_100, 1_712_345_678_000, 1_712_345_678_010.4].map(epochSeconds),
    ).toEqual(['0', '0.999', '1', '1712345678.125', '1712345678.1', '1712345678', '1712345678.01']);
  });

  it('writes a row in the column order of the header', () => {
    expect(historyCsvHeader()).toBe(
      'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time,scheduled_time,deletion_time,' +
        'tenant,priority,sharing_mode,gpu_memory_mib,measured_gpu_memory_mib,measured_gpu_util_pct\n',
    );
    expect(historyCsvLine(ROW)).toBe(
      'train-7,2000,8192,1,500,,,1712345678.125,1712345680.5,1712345740.75,team-a,900,mps,20480,10240,72.5\n',
    );
  });

  it('never writes a comma, quote, newline or | of a name or model: each becomes _', () => {
    expect(csvWord('a,"b"\nc|d e')).toBe('a__b__c_d_e');
    expect(csvWord('ünï-1.2_x')).toBe('_n_-1.2_x');
    // A leading minus would make a spreadsheet read `-1-42` as a formula.
    expect(csvWord('-2+3')).toBe('_2_3');
    const line = historyCsvLine({
      ...ROW,
      name: 'sweep, "lr=0.1"',
      allowedGpuModels: ['A100-80GB', 'H100 SXM', 'x,y'],
      gpuCount: 0,
      gpuMilli: 1000,
      gpuMemoryMiB: null,
      measuredGpuMemoryMiB: null,
      measuredGpuUtilPct: 33.3333,
      sharingMode: '',
    });
    expect(line).toBe(
      'sweep___lr_0.1_-7,2000,8192,0,0,A100-80GB|H100_SXM|x_y,,1712345678.125,1712345680.5,1712345740.75,' +
        'team-a,900,,0,,33.33\n',
    );
    expect(line.split(',')).toHaveLength(16);
  });

  it('is read back by the simulator with the same values', () => {
    const text =
      historyCsvHeader() +
      historyCsvLine(ROW) +
      historyCsvLine({ ...ROW, name: 'a,b', id: 8, measuredGpuMemoryMiB: null, measuredGpuUtilPct: null });
    const [first, second] = parsePodListCsv(text, 'history.csv');
    expect(second).toEqual({
      name: 'train-7',
      cpuMilli: 2000,
      hostMemoryMiB: 8192,
      gpuCount: 1,
      gpuMilli: 500,
      allowedGpuModels: [],
      gpuSpec: '',
      qos: null,
      creationTimeSeconds: 1712345678.125,
      deletionTimeSeconds: 1712345740.75,
      tenant: 'team-a',
      priority: 900,
      sharingMode: 'mps',
      gpuMemoryMiB: 20480,
      measuredGpuMemoryMiB: 10240,
      measuredGpuUtilPct: 72.5,
    });
    expect([first?.name, first?.measuredGpuMemoryMiB, first?.measuredGpuUtilPct]).toEqual(['a_b-8', null, null]);
  });
});
