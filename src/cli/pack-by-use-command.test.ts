import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseFloorSteps, parseGpuModelList, parseHeadroom, parseMaxOverload } from './pack-by-use-command.js';

describe('pack-by-use flags', () => {
  it('--gpu-model takes a comma list of catalog models with known memory, by name or alias', () => {
    expect(parseGpuModelList('A100-80GB, H200')).toEqual([
      { name: 'A100-80GB', gpuMemoryMiB: 81920, migCapable: true },
      { name: 'H200-141GB', gpuMemoryMiB: 143771, migCapable: true },
    ]);
    expect(() => parseGpuModelList('A100-80GB,G1')).toThrow(
      new InvalidArgumentError(
        "unknown GPU model 'G1' or its memory is not known; allowed: P100, T4, V100M16, V100M32, A10, L4, A30-24GB, " +
          'A100-40GB, A100-80GB, H100-80GB, H200-141GB (a comma list)',
      ),
    );
    expect(() => parseGpuModelList('H200,H200-141GB')).toThrow(/GPU model 'H200-141GB' is listed twice/);
  });

  it('--headroom takes auto or a fraction of the peak up to 10', () => {
    expect(parseHeadroom('auto')).toBe('auto');
    expect(parseHeadroom('0.05')).toBe(0.05);
    expect(parseHeadroom('0')).toBe(0);
    for (const bad of ['-0.1', '11', '5%', ''])
      expect(() => parseHeadroom(bad)).toThrow('expected auto or a fraction of the peak from 0 to 10 (0.05 = 5%)');
  });

  it('--max-overload takes a percentage, --floor-steps a whole number', () => {
    expect(parseMaxOverload('1')).toBe(1);
    expect(parseMaxOverload('0.5')).toBe(0.5);
    expect(() => parseMaxOverload('101')).toThrow('expected a percentage from 0 to 100 (1 = 1% of the minutes)');
    expect(parseFloorSteps('0')).toBe(0);
    expect(parseFloorSteps('5000000')).toBe(5_000_000);
    expect(() => parseFloorSteps('1e6')).toThrow('expected a whole number of steps ≥ 0');
  });
});
