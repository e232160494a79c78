/**
 * The command provider with real bash scripts written to a temporary folder: the arguments and
 * environment a script gets, its exit code and output recorded, time-outs and programs that cannot
 * start, and, through the autoscaler loop, the back-off a failing script causes.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AutoscalerLoop } from '../../app/autoscaling/autoscaler-loop.js';
import type { AutoscalerReport } from '../../app/ports/autoscaler-reporter.js';
import type { PoolCluster } from '../../app/ports/pool-cluster.js';
import { MemoryAutoscalerStore } from '../../app/testing/memory-autoscaler-store.js';
import { DEFAULT_AUTOSCALE_POLICY, type JobRequest, type NodeTemplate } from '../../core/index.js';
import { CommandProvider, type CommandProviderOptions } from './command-provider.js';
import { describeNodeProvider } from './node-provider.contract.js';

const ROOT = mkdtempSync(join(tmpdir(), 'gpushare-command-provider-'));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
let folders = 0;

/** A fresh folder with `body` written to it as the executable bash script `scale.sh`. */
function scriptIn(body: string): { dir: string; path: string } {
  const dir = join(ROOT, `case-${++folders}`);
  mkdirSync(dir);
  const path = join(dir, 'scale.sh');
  writeFileSync(path, `#!/bin/bash\n${body}`);
  chmodSync(path, 0o755);
  return { dir, path };
}

/** The provider running `path`, with OUT=`dir` in its environment. */
function provider(path: string, dir: string, options: Partial<CommandProviderOptions> = {}): CommandProvider {
  return new CommandProvider({
    command: path,
    args: [],
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
    env: { PATH: process.env.PATH, OUT: dir },
    ...options,
  });
}

/**
 * A script that keeps each template's group as a file of node names (one per line, new ones
 * `<template>-<n>`): the named nodes go first, then the last ones while there are too many.
 */
const GROUP_SCRIPT = String.raw`set -eu
template=$1; count=$2; shift 2
state="$OUT/$template"; touch "$state"
for node in "$@"; do grep -vx -- "$node" "$state" > "$state.tmp" || true; mv "$state.tmp" "$state"; done
n=$(wc -l < "$state")
while [ "$n" -gt "$count" ]; do sed -i '$d' "$state"; n=$((n-1)); done
next=$(cat "$OUT/counter" 2>/dev/null || echo 0)
while [ "$n" -lt "$count" ]; do next=$((next+1)); echo "$template-$next" >> "$state"; n=$((n+1)); done
echo "$next" > "$OUT/counter"
echo "group $template has $n node(s)"
`;

describe('CommandProvider', () => {
  describe('the NodeProvider contract, with a script that keeps its groups in files', () => {
    describeNodeProvider(async () => {
      const { dir, path } = scriptIn(GROUP_SCRIPT);
      return {
        provider: provider(path, dir),
        nodes: async (template) => {
          const file = join(dir, template);
          return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).sort() : [];
        },
      };
    });
  });

  it('passes template, count and nodes as arguments and environment; records exit code and output', async () => {
    const { dir, path } = scriptIn(String.raw`printf '%s\n' "$@" > "$OUT/args"
env | grep '^GPUSHARE_' | sort > "$OUT/env"
echo "to stdout"
echo "to stderr" >&2
exit "$(cat "$OUT/exit-code")"
`);
    writeFileSync(join(dir, 'exit-code'), '0');
    const p = provider(path, dir, { args: ['--region', 'eu-west-1'] });
    const ok = await p.scale({
      decisionId: 'd-17',
      template: 'a100x2',
      desiredCount: 2,
      removeNodes: ['gpu-7', 'gpu-9'],
    });
    expect(readFileSync(join(dir, 'args'), 'utf8').split('\n')).toEqual([
      '--region',
      'eu-west-1',
      'a100x2',
      '2',
      'gpu-7',
      'gpu-9',
      '',
    ]);
    expect(readFileSync(join(dir, 'env'), 'utf8').split('\n')).toEqual([
      'GPUSHARE_DECISION_ID=d-17',
      'GPUSHARE_DESIRED_COUNT=2',
      'GPUSHARE_REMOVE_NODES=gpu-7,gpu-9',
      'GPUSHARE_TEMPLATE=a100x2',
      '',
    ]);
    expect(ok.ok).toBe(true);
    expect(ok.changed).toBe(true);
    expect(ok.detail).toMatch(
      new RegExp(`^${path} --region eu-west-1 a100x2 2 gpu-7 gpu-9: exit code 0 after \\d+ ms; output: "`),
    );
    const run = p.runs[0]!;
    expect([run.exitCode, run.signal, run.timedOut, run.startError, run.outputCutBytes]).toEqual([
      0,
      null,
      false,
      null,
      0,
    ]);
    // Two pipes: the order of the lines between them is the kernel's.
    expect(run.output.split('\n').sort()).toEqual(['', 'to stderr', 'to stdout']);

    writeFileSync(join(dir, 'exit-code'), '3');
    const failed = await p.scale({ decisionId: 'd-18', template: 'a100x2', desiredCount: 3, removeNodes: [] });
    expect(failed.ok).toBe(false);
    expect(failed.changed).toBe(false);
    expect(failed.detail).toContain('a100x2 3: exit code 3 after ');
    expect(readFileSync(join(dir, 'env'), 'utf8')).toContain('GPUSHARE_REMOVE_NODES=\n');
    expect(p.runs.map((r) => r.exitCode)).toEqual([0, 3]);
  });

  it('keeps the end of a long output, at most maxOutputBytes', async () => {
    const { dir, path } = scriptIn(`head -c 10000 /dev/zero | tr '\\0' x; echo END\n`);
    const p = provider(path, dir, { maxOutputBytes: 256 });
    const outcome = await p.scale({ decisionId: 'd', template: 't', desiredCount: 1, removeNodes: [] });
    expect(outcome.ok).toBe(true);
    expect(p.runs[0]!.output).toHaveLength(256);
    expect(p.runs[0]!.output.endsWith('xxEND\n')).toBe(true);
    expect(p.runs[0]!.outputCutBytes).toBe(10_004 - 256);
    expect(outcome.detail).toContain('output (first 9748 bytes left out): "xxx');
  });

  it('fails a script past its time-out (its whole process group killed) and a program that cannot start', async () => {
    const { dir, path } = scriptIn(`echo started\nsleep 30 &\nwait\n`);
    const p = provider(path, dir, { timeoutMs: 300 });
    const slow = await p.scale({ decisionId: 'd', template: 't', desiredCount: 1, removeNodes: [] });
    expect(slow.ok).toBe(false);
    expect(p.runs[0]!.timedOut).toBe(true);
    expect(p.runs[0]!.durationMs).toBeLessThan(5_000);
    expect(slow.detail).toMatch(/: timed out after \d+ ms \(process group killed\); output: "started"$/);

    const missing = provider(join(dir, 'no-such-script'), dir);
    const never = await missing.scale({ decisionId: 'd', template: 't', desiredCount: 1, removeNodes: [] });
    expect(never.ok).toBe(false);
    expect(missing.runs[0]!.startError).toContain('ENOENT');
    expect(never.detail).toContain('could not start: spawn');
  });

  it('a failing script makes the template back off: no call until the back-off has passed, then one', async () => {
    const { dir, path } = scriptIn(String.raw`echo "$*" >> "$OUT/calls"
echo "cloud says: quota exceeded" >&2
exit "$(cat "$OUT/exit-code")"
`);
    writeFileSync(join(dir, 'exit-code'), '3');
    const template: NodeTemplate = {
      name: 'a100x2',
      gpuModel: 'A100-80GB',
      gpuCount: 2,
      migCapable: false,
      hostCpuMilli: 64_000,
      hostMemoryMiB: 262_144,
      pricePerHour: 4,
      minCount: 0,
      maxCount: 4,
      bootSeconds: 300,
    };
    const job: JobRequest = {
      id: 1,
      tenant: 'team-a',
      priority: 0,
      submittedAtMs: 0,
      cpuMilli: 0,
      hostMemoryMiB: 0,
      gpu: { gpuCount: 1, gpuMilli: 1000, gpuMemoryMiB: null, mode: 'exclusive' },
    };
    const cluster: PoolCluster = {
      read: async () => ({ snapshot: { nodes: [], active: [] }, pending: [job], poolNodes: [] }),
      cordon: async () => false,
      jobsOn: async () => [],
    };
    let now = 1_000_000;
    const reports: AutoscalerReport[] = [];
    const store = new MemoryAutoscalerStore();
    const loop = new AutoscalerLoop(
      {
        cluster,
        provider: provider(path, dir),
        store,
        reporter: { report: async (r) => void reports.push(r) },
        log: { info: () => undefined, warn: () => undefined },
        nowMs: () => now,
      },
      { templates: [template], policy: { ...DEFAULT_AUTOSCALE_POLICY, backoffSeconds: 60 } },
    );
    const calls = (): string[] => readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean);

    const first = await loop.round();
    expect(first.decision.scaleUp.map((s) => [s.template, s.count])).toEqual([['a100x2', 1]]);
    expect(calls()).toEqual(['a100x2 1']);
    expect(first.record.state.failures).toEqual({ a100x2: { count: 1, lastMs: 1_000_000 } });
    expect(first.record.groups.a100x2!.desiredCount).toBe(0);
    expect(first.record.groups.a100x2!.lastOutcome!.detail).toMatch(
      /a100x2 1: exit code 3 after \d+ ms; output: "cloud says: quota exceeded"$/,
    );
    expect(first.record.inFlight).toBeNull();
    const failure = reports.find((r) => r.kind === 'provider-failure');
    expect(failure).toMatchObject({
      template: 'a100x2',
      reason: { code: 'provider-backoff', details: { template: 'a100x2', failures: 1, secondsLeft: 60 } },
    });

    now += 10_000;
    const waiting = await loop.round();
    expect(calls()).toHaveLength(1);
    expect(waiting.decision.scaleUp).toEqual([]);
    expect(waiting.decision.statuses).toContainEqual({
      code: 'provider-backoff',
      lasting: false,
      details: { template: 'a100x2', failures: 1, secondsLeft: 50, jobId: 1 },
    });

    writeFileSync(join(dir, 'exit-code'), '0');
    now += 51_000;
    const again = await loop.round();
    expect(calls()).toEqual(['a100x2 1', 'a100x2 1']);
    expect(again.record.state.failures).toEqual({});
    expect(again.record.groups.a100x2!.desiredCount).toBe(1);
    expect(again.record.groups.a100x2!.raisedAtMs).toBe(1_061_000);
  });
});
