/**
 * The audit anchor with real `/bin/sh` processes: heads reach the command in batches and the last
 * one is recorded in the state file after a clean stop; while the command cannot run, the queue
 * keeps only the newest heads and counts the ones it dropped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../../testing/deadlines.js';
import { readAnchoredHead } from './anchored-head-file.js';
import { startAuditAnchor } from './audit-anchor.js';

const hash = (n: number): string => n.toString(16).padStart(64, '0');
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor<T>(what: string, value: () => T | null): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = value();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('audit anchor', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-anchor-unit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends a head per batch and the last one at stop, and records the last anchored head', async () => {
    const copy = join(dir, 'copy');
    const statePath = join(dir, 'audit-anchored');
    const anchor = startAuditAnchor({
      command: `cat >> '${copy}'`,
      statePath,
      logger,
      head: { seq: 2, hash: hash(2) },
      batchEntries: 3,
      maxDelayMs: 60_000,
    });
    for (let seq = 3; seq <= 9; seq++) anchor.offer(seq, hash(seq));
    anchor.close();
    const state = await waitFor('the last head to be recorded', () => {
      const head = readAnchoredHead(statePath);
      return head?.seq === 9 ? head : null;
    });
    expect(state).toEqual({ seq: 9, hash: hash(9) });
    expect(readFileSync(copy, 'utf8')).toBe([2, 5, 8, 9].map((s) => `${s} ${hash(s)}\n`).join(''));
  });

  it('keeps the newest heads while the command cannot run, counting those dropped', () => {
    const anchor = startAuditAnchor({
      command: 'exit 3',
      statePath: join(dir, 'audit-anchored'),
      logger,
      head: { seq: 0, hash: hash(0) },
      batchEntries: 1,
      queueHeads: 2,
    });
    for (let seq = 1; seq <= 5; seq++) anchor.offer(seq, hash(seq));
    expect(anchor.status()).toEqual({
      up: false,
      anchoredSeq: 0,
      headSeq: 5,
      queuedHeads: 2,
      droppedHeads: 3,
      restarts: 0,
    });
    anchor.close();
  });
});
