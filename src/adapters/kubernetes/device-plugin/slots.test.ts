import { describe, expect, it } from 'vitest';
import { checkAdvertisedDevices, parseSlotId, slotDevices, slotId } from './slots.js';

const gpus = [
  { index: 0, uuid: 'GPU-a' },
  { index: 1, uuid: 'GPU-b' },
];

describe('slots', () => {
  it('numbers slotsPerGpu slots per GPU, as healthy as their GPU', () => {
    expect(slotDevices(gpus, 2, (i) => i === 1)).toEqual([
      { ID: 'gpu0-slot0', health: 'Unhealthy' },
      { ID: 'gpu0-slot1', health: 'Unhealthy' },
      { ID: 'gpu1-slot0', health: 'Healthy' },
      { ID: 'gpu1-slot1', health: 'Healthy' },
    ]);
    expect(parseSlotId(slotId(63, 999))).toEqual({ gpuIndex: 63, k: 999 });
    expect(parseSlotId('gpu01-slot0')).toBeNull();
    expect(slotId(63, 999).length).toBeLessThanOrEqual(63);
  });

  it('checks that what is advertised equals what was discovered', () => {
    const devices = slotDevices(gpus, 2, () => true);
    expect(() => checkAdvertisedDevices(devices, gpus, 2)).not.toThrow();
    expect(() => checkAdvertisedDevices(devices.slice(1), gpus, 2)).toThrow(
      'the device plugin advertises 3 gpushare.io/gpu-slot devices, but 2 GPUs were discovered × 2 slots per GPU = 4',
    );
    expect(() => checkAdvertisedDevices([...devices.slice(1), devices[1]!], gpus, 2)).toThrow(
      'the device plugin advertises device id gpu0-slot1 twice',
    );
    expect(() =>
      checkAdvertisedDevices([...devices.slice(1), { ID: 'gpu2-slot0', health: 'Healthy' }], gpus, 2),
    ).toThrow('the device plugin advertises gpu2-slot0, which is no slot 0..1 of a discovered GPU (indices 0, 1)');
  });
});
