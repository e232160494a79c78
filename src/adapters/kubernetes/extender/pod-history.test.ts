import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePodListCsv } from '../../../sim/traces/alibaba-csv.js';
import { historyCsvHeader } from '../../../contract/history.js';
import type { KubePod } from '../schema/kube-objects.js';
import { openHistoryFile } from './history-file.js';
import { PodHistory, podHistoryRow, type PodHistorySink } from './pod-history.js';

const ASSIGNMENT = {
  schema: 'v1',
  node: 'gpu-node-1',
  mode: 'mps',
  gpus: [{ index: 0, uuid: 'GPU-aaaa', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 20480, mig: null }],
};

/** A pod of team-a asking half of one GPU with 20 GiB, placed by gpushare on gpu-node-1, in `phase`. */
function pod(
  phase: string,
  overrides: { uid?: string; name?: string; node?: string; assignment?: object } = {},
): KubePod {
  return {
    metadata: {
      name: overrides.name ?? 'train-0',
      namespace: 'team-a',
      uid: overrides.uid ?? '3f1c-77',
      creationTimestamp: '2025-01-01T00:00:00Z',
      annotations: {
        'gpushare.io/schema': 'v1',
        'gpushare.io/gpu-count': '1',
        'gpushare.io/gpu-milli': '500',
        'gpushare.io/gpu-memory-mib': '20480',
        'gpushare.io/mode': 'mps',
        'gpushare.io/container': 'main',
        'gpushare.io/assignment': JSON.stringify(overrides.assignment ?? ASSIGNMENT),
      },
    },
    spec: {
      nodeName: overrides.node ?? 'gpu-node-1',
      priority: 1000,
      containers: [
        { name: 'main', resources: { requests: { cpu: '1500m', memory: '4Gi' } } },
        { name: 'sidecar', resources: { requests: { cpu: '0.5', memory: '512Mi' } } },
      ],
    },
    status: {
      phase,
      startTime: '2025-01-01T00:00:05Z',
      containerStatuses:
        phase === 'Running'
          ? [{ state: { running: { startedAt: '2025-01-01T00:00:10Z' } } }]
          : [
              { state: { terminated: { startedAt: '2025-01-01T00:00:10Z', finishedAt: '2025-01-01T00:10:00Z' } } },
              { state: { terminated: { startedAt: '2025-01-01T00:00:12Z', finishedAt: '2025-01-01T00:10:30Z' } } },
            ],
    },
  };
}

const T = (iso: string): number => Date.parse(iso);

/** A sink in memory. */
function memorySink(names: string[] = []): PodHistorySink & { lines: string[] } {
  const lines: string[] = [];
  return { names: new Set(names), lines, append: (line) => void lines.push(line) };
}

describe('the extender history of placed pods', () => {
  it("makes a pod's row from its request, assignment, containers and times", () => {
    expect(podHistoryRow(pod('Succeeded'), T('2025-01-01T01:00:00Z'))).toEqual({
      name: 'team-a.train-0',
      id: '3f1c-77',
      cpuMilli: 2000,
      hostMemoryMiB: 4608,
      gpuCount: 1,
      gpuMilli: 500,
      allowedGpuModels: [],
      submittedAtMs: T('2025-01-01T00:00:00Z'),
      firstStartedAtMs: T('2025-01-01T00:00:10Z'),
      runMs: 620_000,
      tenant: 'team-a',
      priority: 1000,
      sharingMode: 'mps',
      gpuMemoryMiB: 20480,
      measuredGpuMemoryMiB: null,
      measuredGpuUtilPct: null,
    });
    // Deleted while running: it ends when the deletion was seen.
    expect(podHistoryRow(pod('Running'), T('2025-01-01T00:05:10Z'))?.runMs).toBe(300_000);
  });

  it('has no row for a pod gpushare did not place where it runs, or that never started', () => {
    expect(podHistoryRow(pod('Succeeded', { node: 'other-node' }), 0)).toBeNull();
    expect(
      podHistoryRow({ ...pod('Succeeded'), metadata: { name: 'cpu-only', namespace: 'a', uid: 'u' } }, 0),
    ).toBeNull();
    const unstarted = pod('Failed');
    expect(podHistoryRow({ ...unstarted, status: { phase: 'Failed' } }, 0)).toBeNull();
  });

  it('writes one row per pod when it ends, none while it runs, none twice (also after a restart)', () => {
    const sink = memorySink();
    const history = new PodHistory(sink, () => T('2025-01-01T00:20:00Z'));
    history.observe(pod('Running'), false);
    expect(sink.lines).toEqual([]);
    history.observe(pod('Succeeded'), false);
    history.observe(pod('Succeeded'), false);
    history.observe(pod('Succeeded'), true);
    history.observe(pod('Running', { uid: 'u-2', name: 'serve-0' }), true);
    expect(sink.lines).toEqual([
      'team-a.train-0-3f1c-77,2000,4608,1,500,,,1735689600,1735689610,1735690230,team-a,1000,mps,20480,,\n',
      'team-a.serve-0-u-2,2000,4608,1,500,,,1735689600,1735689610,1735690800,team-a,1000,mps,20480,,\n',
    ]);
    const restarted = memorySink(['team-a.train-0-3f1c-77']);
    new PodHistory(restarted, () => 0).observe(pod('Succeeded'), false);
    expect(restarted.lines).toEqual([]);
  });

  it('tries a row again at the next event when the sink fails', () => {
    const sink = memorySink();
    let failing = true;
    const errors: unknown[] = [];
    const history = new PodHistory(
      {
        names: sink.names,
        append: (line) => {
          if (failing) throw new Error('ENOSPC');
          sink.append(line);
        },
      },
      () => 0,
    );
    history.observe(pod('Failed'), false, (e) => errors.push(e));
    failing = false;
    history.observe(pod('Failed'), false);
    expect([errors.length, sink.lines.length]).toEqual([1, 1]);
  });
});

describe('--history-file', () => {
  let folder: string | undefined;
  afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

  it('starts with the header, keeps rows across opens, cuts a torn last line; the simulator reads it', () => {
    folder = mkdtempSync(join(tmpdir(), 'gpushare-extender-history-'));
    const file = join(folder, 'history.csv');
    const first = new PodHistory(openHistoryFile(file), () => 0);
    first.observe(pod('Succeeded'), false);
    writeFileSync(file, `${readFileSync(file, 'utf8')}team-a.torn-1,20`, { flag: 'w' });
    const again = openHistoryFile(file);
    expect([...again.names]).toEqual(['team-a.train-0-3f1c-77']);
    const second = new PodHistory(again, () => 0);
    second.observe(pod('Succeeded'), false);
    second.observe(pod('Failed', { uid: 'u-3', name: 'eval,"x"' }), false);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(historyCsvHeader())).toBe(true);
    const pods = parsePodListCsv(text, file);
    expect(pods.map((p) => [p.name, p.tenant, p.sharingMode, p.creationTimeSeconds, p.deletionTimeSeconds])).toEqual([
      ['team-a.eval__x_-u-3', 'team-a', 'mps', 1735689600, 1735690230],
      ['team-a.train-0-3f1c-77', 'team-a', 'mps', 1735689600, 1735690230],
    ]);
  });

  it('refuses a file that is not a history export', () => {
    folder = mkdtempSync(join(tmpdir(), 'gpushare-extender-history-'));
    const file = join(folder, 'notes.txt');
    writeFileSync(file, 'hello\n');
    expect(() => openHistoryFile(file)).toThrow(`--history-file ${file} is not a history export`);
  });
});
