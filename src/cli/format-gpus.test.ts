import { describe, expect, it } from 'vitest';
import { sampleGpu } from '../adapters/http-client/testing/api-fixtures.js';
import { formatGpuBlock } from './format-gpus.js';

describe('formatGpuBlock', () => {
  it('labels values of simulated GPUs as simulated and real ones as measured', () => {
    const simulated = formatGpuBlock(
      sampleGpu({ utilizationGpuPct: 50, memoryUsedMiB: 40960, measuredSource: 'simulated' }),
    );
    expect(simulated.split('\n')).toContain('  simulated: utilization 50%, memory used 40960 MiB');
    const real = formatGpuBlock(
      sampleGpu({ simulated: false, utilizationGpuPct: 97, memoryUsedMiB: null, measuredSource: 'nvidia-smi' }),
    );
    expect(real.split('\n')).toContain('  measured: utilization 97%, memory used -');
  });

  it('prints no measured line when nothing is measured', () => {
    expect(
      formatGpuBlock(sampleGpu())
        .split('\n')
        .filter((l) => l.includes('utilization')),
    ).toEqual([]);
  });
});
