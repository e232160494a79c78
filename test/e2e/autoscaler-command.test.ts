/**
 * `gpushare autoscaler` (the built CLI) refuses bad input before it reaches any cluster: a config
 * file with bad fields (each named, with what it allows) exits 1; a missing --config or a flag out
 * of range exits 2 (usage).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const BIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'gpushare');
const dir = mkdtempSync(join(tmpdir(), 'gpushare-autoscaler-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `gpushare autoscaler <args>`: its exit status and stderr. */
function run(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, 'autoscaler', ...args], { encoding: 'utf8', timeout: WAIT_MS });
  return { status: r.status, stderr: r.stderr };
}

describe('gpushare autoscaler: bad input', () => {
  it('exits 1 for a config file with bad fields, naming each field and what it allows', () => {
    const file = join(dir, 'autoscaler.yaml');
    writeFileSync(
      file,
      [
        'templates:',
        '  - { name: a100x2, gpuModel: A100-80GB, gpuCount: 2, pricePerHour: 4, maxCount: 2, bootSeconds: 60 }',
        'policy: { scaleDownUtilization: 2 }',
        'provider: { kind: aws }',
        '',
      ].join('\n'),
    );
    const r = run(['--config', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `${file}: policy.scaleDownUtilization: Number must be less than or equal to 1; ` +
        "provider.kind: must be one of command, kubernetes, simulated, got 'aws'",
    );
  });

  it('exits 1 for a config file that does not exist, and 2 without --config or with --interval-seconds 0', () => {
    const missing = run(['--config', join(dir, 'none.yaml')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`cannot read --config file '${join(dir, 'none.yaml')}'`);
    const noConfig = run([]);
    expect(noConfig.status).toBe(2);
    expect(noConfig.stderr).toContain("required option '--config <file>' not specified");
    const interval = run(['--config', join(dir, 'none.yaml'), '--interval-seconds', '0']);
    expect(interval.status).toBe(2);
    expect(interval.stderr).toContain('--interval-seconds');
  });
});
