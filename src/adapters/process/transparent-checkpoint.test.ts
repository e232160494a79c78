import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectCheckpointSupport } from './transparent-checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'gpushare-criu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('detectCheckpointSupport', () => {
  it('reports missing tools and keeps the signal protocol', () => {
    expect(detectCheckpointSupport({ path: dir })).toEqual({
      method: 'signal',
      transparentAvailable: false,
      detail: 'criu: not installed; cuda-checkpoint: not installed; preemption uses the signal protocol',
    });
  });

  it('reports a failing criu check with its first line', () => {
    writeFileSync(
      join(dir, 'criu'),
      '#!/bin/sh\necho "Error (criu/cr-check.c:1234): Kernel does not support PTRACE_O_SUSPEND_SECCOMP" >&2\nexit 1\n',
    );
    chmodSync(join(dir, 'criu'), 0o755);
    const support = detectCheckpointSupport({ path: dir });
    expect(support.transparentAvailable).toBe(false);
    expect(support.detail).toBe(
      'criu: `criu check` failed (Error (criu/cr-check.c:1234): Kernel does not support ' +
        'PTRACE_O_SUSPEND_SECCOMP); cuda-checkpoint: not installed; preemption uses the signal protocol',
    );
  });
});
