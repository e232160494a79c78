import { describe, expect, it } from 'vitest';
import { parseShareConfig, ShareConfigError, shareModeFor } from './share-config.js';

const params = (extra: object = {}): object => ({ apiVersion: 'gpushare.io/v1', kind: 'GpuShareConfig', ...extra });
const opaque = (mode: string, more: object = {}): object => ({
  opaque: { driver: 'gpu.gpushare.io', parameters: params({ mode }) },
  ...more,
});

describe('parseShareConfig', () => {
  it('takes timeslice and mps, and defaults to timeslice', () => {
    expect(parseShareConfig(params({ mode: 'mps' })).mode).toBe('mps');
    expect(parseShareConfig(params({ mode: 'timeslice' })).mode).toBe('timeslice');
    expect(parseShareConfig(params()).mode).toBe('timeslice');
  });

  it.each([
    [params({ mode: 'MPS' }), 'parameters.mode must be "timeslice" or "mps", got "MPS"'],
    [params({ mode: 3 }), 'parameters.mode must be "timeslice" or "mps", got 3'],
    [{ kind: 'GpuShareConfig' }, 'parameters.apiVersion must be "gpushare.io/v1", got undefined'],
    [{ apiVersion: 'gpushare.io/v1', kind: 'GpuConfig' }, 'parameters.kind must be "GpuShareConfig", got "GpuConfig"'],
    [params({ sharing: {} }), 'parameters.sharing must be "absent", got {}'],
    [[], 'parameters must be "an object of kind GpuShareConfig", got []'],
  ])('refuses %j naming the field and the allowed values', (input, message) => {
    expect(() => parseShareConfig(input)).toThrow(ShareConfigError);
    expect(() => parseShareConfig(input)).toThrow(message);
  });
});

describe('shareModeFor', () => {
  it('takes the claim config over the class config, whatever their order', () => {
    const configs = [opaque('mps', { source: 'FromClaim' }), opaque('timeslice', { source: 'FromClass' })];
    expect(shareModeFor(configs, 'gpu')).toBe('mps');
  });

  it('applies a config only to the requests it lists (a subrequest by its parent)', () => {
    const configs = [opaque('mps', { source: 'FromClaim', requests: ['a'] })];
    expect(shareModeFor(configs, 'a')).toBe('mps');
    expect(shareModeFor(configs, 'a/small')).toBe('mps');
    expect(shareModeFor(configs, 'b')).toBe('timeslice');
  });

  it("ignores other drivers' configs and checks every config of this driver", () => {
    const other = { source: 'FromClaim', opaque: { driver: 'gpu.nvidia.com', parameters: { anything: 1 } } };
    expect(shareModeFor([other], 'gpu')).toBe('timeslice');
    const bad = [opaque('mps', { requests: ['a'] }), opaque('fast', { source: 'FromClaim', requests: ['b'] })];
    expect(() => shareModeFor(bad, 'a')).toThrow(
      'config[1].opaque.parameters.mode must be "timeslice" or "mps", got "fast"',
    );
  });
});
