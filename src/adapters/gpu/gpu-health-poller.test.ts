import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GpuInventory, InventoryGpu } from '../../app/ports/gpu-inventory.js';
import { createGpuHealthPoller, type GpuChange } from './gpu-health-poller.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from './simulated-gpus.js';
import { WAIT_MS } from '../../testing/deadlines.js';

interface Report {
  list: InventoryGpu[];
  changes: GpuChange[];
}

function setup(spec = '3xT4'): {
  sim: ReturnType<typeof createSimulatedInventory>;
  inventory: GpuInventory & { failWith: Error | null };
  reports: Report[];
} {
  const sim = createSimulatedInventory(parseSimulatedGpuSpec(spec), { seed: 'poller-test' });
  const inventory = {
    source: 'simulated' as const,
    failWith: null as Error | null,
    list(): Promise<InventoryGpu[]> {
      return this.failWith ? Promise.reject(this.failWith) : sim.list();
    },
  };
  return { sim, inventory, reports: [] };
}

const summary = (changes: GpuChange[]): [string, number, boolean, string | null][] =>
  changes.map((c) => [c.kind, c.gpu.index, c.gpu.healthy, c.gpu.healthReason]);

afterEach(() => {
  vi.useRealTimers();
});

describe('createGpuHealthPoller (fake timers)', () => {
  it('reports appeared, health flips, vanished, list() failure and recovery', async () => {
    vi.useFakeTimers();
    const { sim, inventory, reports } = setup();
    const poller = createGpuHealthPoller({
      inventory,
      intervalMs: 1000,
      onChange: (list, changes) => {
        reports.push({ list, changes });
      },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(reports).toHaveLength(1);
    expect(summary(reports[0]!.changes)).toEqual([
      ['appeared', 0, true, null],
      ['appeared', 1, true, null],
      ['appeared', 2, true, null],
    ]);
    expect(reports[0]!.changes.every((c) => c.previous === null)).toBe(true);

    await vi.advanceTimersByTimeAsync(3000);
    expect(reports).toHaveLength(1); // nothing changed: no report

    sim.setHealth(1, false, 'XID 79 (GPU has fallen off the bus)');
    await vi.advanceTimersByTimeAsync(1000);
    expect(reports).toHaveLength(2);
    expect(summary(reports[1]!.changes)).toEqual([['health', 1, false, 'XID 79 (GPU has fallen off the bus)']]);
    expect(reports[1]!.changes[0]?.previous?.healthy).toBe(true);

    sim.remove(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(summary(reports[2]!.changes)).toEqual([['vanished', 2, false, 'vanished']]);
    expect(reports[2]!.list.map((g) => [g.index, g.healthy])).toEqual([
      [0, true],
      [1, false],
      [2, false],
    ]);

    inventory.failWith = new Error('nvidia-smi -L: exited with code 9');
    await vi.advanceTimersByTimeAsync(1000);
    expect(summary(reports[3]!.changes)).toEqual([
      ['health', 0, false, 'nvidia-smi -L: exited with code 9'],
      ['health', 1, false, 'nvidia-smi -L: exited with code 9'],
    ]);
    expect(reports[3]!.list.find((g) => g.index === 2)?.healthReason).toBe('vanished');

    await vi.advanceTimersByTimeAsync(1000);
    expect(reports).toHaveLength(4); // still failing, same reason: no report

    inventory.failWith = null;
    sim.setHealth(1, true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(summary(reports[4]!.changes)).toEqual([
      ['health', 0, true, null],
      ['health', 1, true, null],
    ]);
    expect(reports[4]!.list.map((g) => [g.index, g.healthy])).toEqual([
      [0, true],
      [1, true],
      [2, false],
    ]);

    await poller.stop();
    sim.setHealth(0, false, 'late');
    await vi.advanceTimersByTimeAsync(5000);
    expect(reports).toHaveLength(5);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a GPU failing before the first successful poll is reported once it appears', async () => {
    vi.useFakeTimers();
    const { inventory, reports } = setup('1xH100-80GB:mig');
    inventory.failWith = new Error('boom');
    const poller = createGpuHealthPoller({
      inventory,
      intervalMs: 50,
      onChange: (list, changes) => {
        reports.push({ list, changes });
      },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(reports).toEqual([{ list: [], changes: [] }]); // first poll always reported
    inventory.failWith = null;
    await vi.advanceTimersByTimeAsync(50);
    expect(summary(reports[1]!.changes)).toEqual([['appeared', 0, true, null]]);
    expect(reports[1]!.list[0]).toMatchObject({
      model: 'H100-80GB',
      migEnabled: true,
      migDevices: [],
      simulated: true,
    });
    await poller.stop();
  });

  it('keeps polling when onChange throws, reporting to onListenerError', async () => {
    vi.useFakeTimers();
    const { sim, inventory } = setup('1xT4');
    const errors: unknown[] = [];
    let calls = 0;
    const poller = createGpuHealthPoller({
      inventory,
      intervalMs: 10,
      onChange: () => {
        calls += 1;
        throw new Error(`listener ${calls}`);
      },
      onListenerError: (e) => errors.push(e),
    });
    await vi.advanceTimersByTimeAsync(0);
    sim.setHealth(0, false, 'x');
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['listener 1', 'listener 2']);
    await poller.stop();
  });

  it('pollNow reports at once', async () => {
    vi.useFakeTimers();
    const { sim, inventory, reports } = setup('2xA30-24GB');
    const poller = createGpuHealthPoller({
      inventory,
      intervalMs: 60_000,
      onChange: (list, changes) => {
        reports.push({ list, changes });
      },
    });
    await vi.advanceTimersByTimeAsync(0);
    sim.remove(0);
    await poller.pollNow();
    expect(summary(reports[1]!.changes)).toEqual([['vanished', 0, false, 'vanished']]);
    await poller.stop();
    await poller.stop();
  });

  it('rejects a non-positive interval', () => {
    const { inventory } = setup();
    expect(() => createGpuHealthPoller({ inventory, intervalMs: 0, onChange: () => undefined })).toThrow(
      'intervalMs must be a positive number of milliseconds, got 0',
    );
  });
});

describe('createGpuHealthPoller (real timers, short interval)', () => {
  it('polls repeatedly and stops', async () => {
    const { sim, inventory, reports } = setup('1xL4');
    const poller = createGpuHealthPoller({
      inventory,
      intervalMs: 5,
      onChange: (list, changes) => {
        reports.push({ list, changes });
      },
    });
    await vi.waitFor(() => expect(reports).toHaveLength(1), { timeout: WAIT_MS });
    sim.setHealth(0, false, 'GPU reset required');
    await vi.waitFor(() => expect(reports).toHaveLength(2), { timeout: WAIT_MS });
    expect(summary(reports[1]!.changes)).toEqual([['health', 0, false, 'GPU reset required']]);
    await poller.stop();
  });
});
