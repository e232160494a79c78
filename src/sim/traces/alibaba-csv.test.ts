import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { parseNodeListCsv, parsePodListCsv, readNodeListFile, readPodListFile } from './alibaba-csv.js';
import { TraceFormatError } from './trace-types.js';

const dataFile = (name: string): string =>
  fileURLToPath(new URL(`../../../data/alibaba-gpu-v2023/${name}`, import.meta.url));

const NODE_HEADER = 'sn,cpu_milli,memory_mib,gpu,model';
const POD_HEADER =
  'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';
const POD_ALLOWED =
  'allowed columns: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,' +
  'creation_time,deletion_time,scheduled_time,tenant,priority,sharing_mode,gpu_memory_mib,' +
  'measured_gpu_memory_mib,measured_gpu_util_pct ' +
  '(required: name,cpu_milli,memory_mib,num_gpu,gpu_milli)';
const NODE_ALLOWED = 'allowed columns: sn,cpu_milli,memory_mib,gpu,model (required: sn,cpu_milli,memory_mib,gpu,model)';

/** Runs `fn`, expects a TraceFormatError and returns it. */
function traceError(fn: () => unknown): TraceFormatError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TraceFormatError);
    return err as TraceFormatError;
  }
  throw new Error('expected a TraceFormatError');
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

describe('shipped cluster-trace-gpu-v2023 files', () => {
  it('parses openb_node_list_gpu_node.csv', async () => {
    const nodes = await readNodeListFile(dataFile('openb_node_list_gpu_node.csv'));
    expect(nodes).toHaveLength(1213);
    expect(sum(nodes.map((n) => n.gpuCount))).toBe(6212);
    expect(sum(nodes.map((n) => n.cpuMilli))).toBe(107_018_000);
    const byModel: Record<string, number> = {};
    for (const n of nodes) byModel[n.gpuModel ?? 'none'] = (byModel[n.gpuModel ?? 'none'] ?? 0) + n.gpuCount;
    expect(byModel).toEqual({ G2: 4392, T4: 842, G3: 312, P100: 265, V100M32: 204, V100M16: 195, A10: 2 });
    expect(nodes[0]).toEqual({
      name: 'openb-node-0000',
      cpuMilli: 64000,
      hostMemoryMiB: 262144,
      gpuCount: 2,
      gpuModel: 'P100',
    });
  });

  it('parses openb_pod_list_default.csv', async () => {
    const pods = await readPodListFile(dataFile('openb_pod_list_default.csv'));
    expect(pods).toHaveLength(8152);
    const counts: Record<number, number> = {};
    for (const p of pods) counts[p.gpuCount] = (counts[p.gpuCount] ?? 0) + 1;
    expect(counts).toEqual({ 0: 1088, 1: 6989, 2: 16, 4: 15, 8: 44 });
    expect(sum(pods.map((p) => p.gpuCount * p.gpuMilli))).toBe(6_086_800);
    expect(pods[0]).toEqual({
      name: 'openb-pod-0000',
      cpuMilli: 12000,
      hostMemoryMiB: 16384,
      gpuCount: 1,
      gpuMilli: 1000,
      allowedGpuModels: [],
      gpuSpec: '',
      qos: 'LS',
      creationTimeSeconds: 0,
      deletionTimeSeconds: 12537496,
    });
    const names = pods.map((p) => p.name);
    expect(names).toEqual([...names].sort());
  });

  it('parses the 5-column openb_pod_list_multigpu20.csv', async () => {
    const pods = await readPodListFile(dataFile('openb_pod_list_multigpu20.csv'));
    expect(pods).toHaveLength(8324);
    expect(pods.every((p) => p.gpuSpec === '' && p.qos === null && p.allowedGpuModels.length === 0)).toBe(true);
    expect(pods.every((p) => p.creationTimeSeconds === null && p.deletionTimeSeconds === null)).toBe(true);
  });

  it('reports an unreadable file', async () => {
    const path = dataFile('no-such-file.csv');
    await expect(readPodListFile(path)).rejects.toThrow(TraceFormatError);
    await expect(readNodeListFile(path)).rejects.toThrow(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read file: ENOENT`),
    );
  });
});

describe('parseNodeListCsv', () => {
  it('takes column order from the header and tolerates BOM, CRLF and a trailing newline', () => {
    const text =
      '\uFEFFmodel,gpu,sn,memory_mib,cpu_milli\r\nT4,1,n1,1024,8000\r\n,0,n2,2048,4000\r\nG2,0,n3,512,1000\r\n';
    expect(parseNodeListCsv(text, 'n.csv')).toEqual([
      { name: 'n1', cpuMilli: 8000, hostMemoryMiB: 1024, gpuCount: 1, gpuModel: 'T4' },
      { name: 'n2', cpuMilli: 4000, hostMemoryMiB: 2048, gpuCount: 0, gpuModel: null },
      { name: 'n3', cpuMilli: 1000, hostMemoryMiB: 512, gpuCount: 0, gpuModel: 'G2' },
    ]);
  });

  it('rejects unknown and missing columns', () => {
    expect(traceError(() => parseNodeListCsv(`${NODE_HEADER},rack,zone\nn1,1,1,0,,a,b\n`, 'n.csv')).message).toBe(
      `n.csv:1: unknown column(s) 'rack', 'zone'; ${NODE_ALLOWED}`,
    );
    const e = traceError(() => parseNodeListCsv('sn,cpu_milli,memory_mib,gpu\nn1,1,1,0\n', 'n.csv'));
    expect(e.message).toBe(`n.csv:1 field 'model': missing required column(s) model; ${NODE_ALLOWED}`);
    expect([e.fileName, e.line, e.field]).toEqual(['n.csv', 1, 'model']);
  });

  it('requires cpu_milli > 0 and a model when gpu > 0', () => {
    expect(traceError(() => parseNodeListCsv(`${NODE_HEADER}\nn1,0,1,0,\n`, 'n.csv')).message).toBe(
      "n.csv:2 field 'cpu_milli': expected an integer >= 1 (digits only), found '0'",
    );
    expect(traceError(() => parseNodeListCsv(`${NODE_HEADER}\nn1,1,1,0,\nn2,1,1,4,\n`, 'n.csv')).message).toBe(
      "n.csv:3 field 'model': expected a GPU model code (e.g. G2, T4) when gpu is 4, found empty",
    );
  });

  it('rejects duplicate names, naming the first line', () => {
    expect(
      traceError(() => parseNodeListCsv(`${NODE_HEADER}\nn1,1,1,0,\nn2,1,1,0,\nn1,1,1,0,\n`, 'n.csv')).message,
    ).toBe("n.csv:4 field 'sn': duplicate name 'n1' (first on line 2); names must be unique");
  });

  it('rejects an empty file and a header without rows', () => {
    expect(traceError(() => parseNodeListCsv('', 'n.csv')).message).toBe('n.csv: no rows: the file is empty');
    expect(traceError(() => parseNodeListCsv(`${NODE_HEADER}\r\n`, 'n.csv')).message).toBe(
      'n.csv:1: no rows: the file has a header but no data rows',
    );
  });
});

describe('parsePodListCsv', () => {
  const pod = (cells: string): string => `${POD_HEADER}\n${cells}\n`;

  it('splits gpu_spec on | and drops empty pieces', () => {
    const [p] = parsePodListCsv(pod('p1,1000,512,1,500,V100M16|V100M32|,BE,Pending,10,20,'), 'p.csv');
    expect(p).toEqual({
      name: 'p1',
      cpuMilli: 1000,
      hostMemoryMiB: 512,
      gpuCount: 1,
      gpuMilli: 500,
      allowedGpuModels: ['V100M16', 'V100M32'],
      gpuSpec: 'V100M16|V100M32|',
      qos: 'BE',
      creationTimeSeconds: 10,
      deletionTimeSeconds: 20,
    });
  });

  it('accepts a subset of optional columns and sorts by name (stable, code-unit order)', () => {
    const text =
      'gpu_milli,name,num_gpu,cpu_milli,memory_mib,creation_time\n0,b,0,1,1,\n1000,B,1,1,1,5\n250,a,2,1,1,7\n';
    const pods = parsePodListCsv(text, 'p.csv');
    expect(pods.map((p) => p.name)).toEqual(['B', 'a', 'b']);
    expect(pods.map((p) => p.creationTimeSeconds)).toEqual([5, 7, null]);
    expect(pods.map((p) => [p.gpuSpec, p.qos, p.deletionTimeSeconds])).toEqual([
      ['', null, null],
      ['', null, null],
      ['', null, null],
    ]);
  });

  it('rejects unknown and missing columns', () => {
    expect(
      traceError(() => parsePodListCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_type\np,1,1,0,0,x\n', 'p.csv'))
        .message,
    ).toBe(`p.csv:1: unknown column(s) 'gpu_type'; ${POD_ALLOWED}`);
    expect(traceError(() => parsePodListCsv('name,cpu_milli,memory_mib,gpu_milli\np,1,1,0\n', 'p.csv')).message).toBe(
      `p.csv:1 field 'num_gpu': missing required column(s) num_gpu; ${POD_ALLOWED}`,
    );
  });

  it('rejects a row with the wrong number of cells', () => {
    expect(traceError(() => parsePodListCsv(pod('p1,1,1,0,0,,LS,Running,0,1'), 'p.csv')).message).toBe(
      `p.csv:2: expected 11 cells (${POD_HEADER}), found 10`,
    );
  });

  it.each([
    ['12k', "p.csv:2 field 'cpu_milli': expected an integer >= 0 (digits only), found '12k'"],
    ['1e3', "p.csv:2 field 'cpu_milli': expected an integer >= 0 (digits only), found '1e3'"],
    ['-5', "p.csv:2 field 'cpu_milli': expected an integer >= 0 (digits only), found '-5'"],
    ['1.5', "p.csv:2 field 'cpu_milli': expected an integer >= 0 (digits only), found '1.5'"],
    ['', "p.csv:2 field 'cpu_milli': expected an integer >= 0 (digits only), found ''"],
  ])('rejects cpu_milli %j', (cell, message) => {
    expect(traceError(() => parsePodListCsv(pod(`p1,${cell},1,0,0,,LS,Running,0,1,0`), 'p.csv')).message).toBe(message);
  });

  it('trims whitespace around numbers', () => {
    expect(parsePodListCsv(pod('p1, 5 ,1,0,0,,LS,Running,0,1,0'), 'p.csv')[0]?.cpuMilli).toBe(5);
  });

  it('validates num_gpu, gpu_milli and the time columns', () => {
    const msg = (cells: string): string => traceError(() => parsePodListCsv(pod(cells), 'p.csv')).message;
    expect(msg('p1,1,1,-1,0,,LS,Running,0,1,0')).toBe(
      "p.csv:2 field 'num_gpu': expected an integer >= 0 (digits only), found '-1'",
    );
    expect(msg('p1,1,1,1,1001,,LS,Running,0,1,0')).toBe(
      "p.csv:2 field 'gpu_milli': expected an integer in 0..1000 (digits only), found '1001'",
    );
    expect(msg('p1,1,1,0,500,,LS,Running,0,1,0')).toBe(
      "p.csv:2 field 'gpu_milli': expected 0 when num_gpu is 0, found 500",
    );
    expect(msg('p1,1,1,2,0,,LS,Running,0,1,0')).toBe(
      "p.csv:2 field 'gpu_milli': expected an integer in 1..1000 when num_gpu is 2, found 0",
    );
    const seconds = 'expected a number of seconds >= 0 with at most 3 decimals (e.g. 12 or 1712345678.125)';
    expect(msg('p1,1,1,0,0,,LS,Running,x,1,0')).toBe(`p.csv:2 field 'creation_time': ${seconds}, found 'x'`);
    expect(msg('p1,1,1,0,0,,LS,Running,0,1,1.5555')).toBe(`p.csv:2 field 'scheduled_time': ${seconds}, found '1.5555'`);
    expect(msg('p1,1,1,0,0,,LS,Running,0,-1,0')).toBe(`p.csv:2 field 'deletion_time': ${seconds}, found '-1'`);
    expect(msg('p1,1,1,0,0,,LS,Running,0,1.,0')).toBe(`p.csv:2 field 'deletion_time': ${seconds}, found '1.'`);
  });

  it('accepts times with up to 3 decimals', () => {
    const [p] = parsePodListCsv(pod('p1,1,1,0,0,,LS,Running,1712345678.125,1712345690.5,1712345679.001'), 'p.csv');
    expect([p?.creationTimeSeconds, p?.deletionTimeSeconds]).toEqual([1712345678.125, 1712345690.5]);
  });

  it('accepts empty scheduled/creation/deletion times', () => {
    const [p] = parsePodListCsv(pod('p1,1,1,0,0,,LS,Pending,,,'), 'p.csv');
    expect([p?.creationTimeSeconds, p?.deletionTimeSeconds]).toEqual([null, null]);
  });

  it('rejects duplicate names, naming the first line', () => {
    expect(
      traceError(() =>
        parsePodListCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1,1,0,0\np2,1,1,0,0\np1,1,1,0,0\n', 'p.csv'),
      ).message,
    ).toBe("p.csv:4 field 'name': duplicate name 'p1' (first on line 2); names must be unique");
  });

  it('rejects an empty file and a header without rows, tolerating a BOM', () => {
    expect(traceError(() => parsePodListCsv('\uFEFF', 'p.csv')).message).toBe('p.csv: no rows: the file is empty');
    expect(traceError(() => parsePodListCsv(`\uFEFF${POD_HEADER}`, 'p.csv')).message).toBe(
      'p.csv:1: no rows: the file has a header but no data rows',
    );
  });
});

describe('parsePodListCsv: a gpushare history export', () => {
  const HISTORY_HEADER =
    'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time,scheduled_time,deletion_time,' +
    'tenant,priority,sharing_mode,gpu_memory_mib,measured_gpu_memory_mib,measured_gpu_util_pct';
  const history = (...rows: string[]): string => `${HISTORY_HEADER}\n${rows.join('\n')}\n`;

  it('returns the new columns, with null for empty cells and decimal epoch times', () => {
    const pods = parsePodListCsv(
      history(
        'train-7,2000,8192,1,500,A100-80GB|H100,,1712345678.125,1712345680.5,1712345740.5,' +
          'team-a,900,mps,20480,10240,72.5',
        'eval-8,0,0,2,1000,,,1712345600,1712345601.001,1712345602.001,team-b,500,exclusive,0,,',
      ),
      'h.csv',
    );
    expect(pods).toEqual([
      {
        name: 'eval-8',
        cpuMilli: 0,
        hostMemoryMiB: 0,
        gpuCount: 2,
        gpuMilli: 1000,
        allowedGpuModels: [],
        gpuSpec: '',
        qos: null,
        creationTimeSeconds: 1712345600,
        deletionTimeSeconds: 1712345602.001,
        tenant: 'team-b',
        priority: 500,
        sharingMode: 'exclusive',
        gpuMemoryMiB: 0,
        measuredGpuMemoryMiB: null,
        measuredGpuUtilPct: null,
      },
      {
        name: 'train-7',
        cpuMilli: 2000,
        hostMemoryMiB: 8192,
        gpuCount: 1,
        gpuMilli: 500,
        allowedGpuModels: ['A100-80GB', 'H100'],
        gpuSpec: 'A100-80GB|H100',
        qos: null,
        creationTimeSeconds: 1712345678.125,
        deletionTimeSeconds: 1712345740.5,
        tenant: 'team-a',
        priority: 900,
        sharingMode: 'mps',
        gpuMemoryMiB: 20480,
        measuredGpuMemoryMiB: 10240,
        measuredGpuUtilPct: 72.5,
      },
    ]);
  });

  it('returns only the new fields whose columns the file has', () => {
    const [p] = parsePodListCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli,tenant\np,1,1,1,250,\n', 'h.csv');
    expect(p).toEqual({
      name: 'p',
      cpuMilli: 1,
      hostMemoryMiB: 1,
      gpuCount: 1,
      gpuMilli: 250,
      allowedGpuModels: [],
      gpuSpec: '',
      qos: null,
      creationTimeSeconds: null,
      deletionTimeSeconds: null,
      tenant: null,
    });
    expect('priority' in p! || 'sharingMode' in p! || 'measuredGpuMemoryMiB' in p!).toBe(false);
  });

  it.each([
    ['priority', 'x', "p.csv:2 field 'priority': expected an integer in 0..1000000 (digits only), found 'x'"],
    [
      'priority',
      '1000001',
      "p.csv:2 field 'priority': expected an integer in 0..1000000 (digits only), found '1000001'",
    ],
    [
      'sharing_mode',
      'auto',
      "p.csv:2 field 'sharing_mode': expected one of exclusive, mps, timeslice, mig or empty, found 'auto'",
    ],
    ['gpu_memory_mib', '1.5', "p.csv:2 field 'gpu_memory_mib': expected an integer >= 0 (digits only), found '1.5'"],
    [
      'measured_gpu_memory_mib',
      '-3',
      "p.csv:2 field 'measured_gpu_memory_mib': expected an integer >= 0 (digits only), found '-3'",
    ],
    [
      'measured_gpu_util_pct',
      '100.5',
      "p.csv:2 field 'measured_gpu_util_pct': expected a percentage in 0..100 (e.g. 72.5), found '100.5'",
    ],
    [
      'measured_gpu_util_pct',
      'NaN',
      "p.csv:2 field 'measured_gpu_util_pct': expected a percentage in 0..100 (e.g. 72.5), found 'NaN'",
    ],
  ])('rejects %s %j, naming the field', (column, cell, message) => {
    const text = `name,cpu_milli,memory_mib,num_gpu,gpu_milli,${column}\np,1,1,1,250,${cell}\n`;
    expect(traceError(() => parsePodListCsv(text, 'p.csv')).message).toBe(message);
  });

  it('still rejects unknown columns', () => {
    expect(
      traceError(() => parsePodListCsv('name,cpu_milli,memory_mib,num_gpu,gpu_milli,user\np,1,1,0,0,x\n', 'p.csv'))
        .message,
    ).toBe(`p.csv:1: unknown column(s) 'user'; ${POD_ALLOWED}`);
  });
});
