/**
 * End-to-end: a real server with `--audit-anchor-command` running a shell script that appends its
 * standard input to a file (the anchor's copy). The script receives the heads; killing it shows in
 * `/healthz` (`auditAnchor.up` false, status still 200), in `gpushare_audit_anchor_up` and in the
 * range `gpushare audit verify` reports as not anchored; it is started again and catches up. After
 * a clean stop the copy's last head is the store's head and every head of it matches the store; a
 * full, consistent rewrite of store and journal passes plain `verify` but fails `verify
 * --anchor-file` against the copy.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  cli,
  pollFor,
  serverFetch,
  startServe,
  stopServe,
  type ServeHandle,
} from './support/serve-harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies and stored rows are checked field by field */

let server: ServeHandle | null = null;
let scratch = '';
let copyFile = '';
let pidFile = '';
let blockFile = '';

const verify = (dir: string, ...args: string[]) => cli(server!, ['audit', 'verify', '--data-dir', dir, ...args]);
const dataDir = (): string => join(server!.dataDir, 'data');

async function healthz(): Promise<{ status: number; body: any }> {
  const response = await serverFetch(server!, '/healthz');
  return { status: response.status, body: await response.json() };
}

async function metric(name: string): Promise<number> {
  const response = await serverFetch(server!, '/metrics', {
    headers: { authorization: `Bearer ${server!.adminToken}` },
  });
  const line = (await response.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

/** Heads in the anchor's copy, `[seq, hash]` each. */
const copiedHeads = (): [number, string][] =>
  readFileSync(copyFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [seq, hash] = line.split(' ');
      return [Number(seq), hash!];
    });

/** Some recorded API calls (cordon and uncordon of GPU 0). */
async function someCalls(count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    expect((await api(server!, 'POST', `/api/v1/gpus/0/${i % 2 === 0 ? 'cordon' : 'uncordon'}`)).status).toBe(200);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'gpushare-anchor-'));
  copyFile = join(scratch, 'anchor-copy');
  pidFile = join(scratch, 'anchor.pid');
  blockFile = join(scratch, 'block');
  const script = join(scratch, 'anchor.sh');
  // The anchor: fails at once while the block file exists (a host that cannot be reached), else records its pid and
  // appends every line it receives to the copy.
  writeFileSync(
    script,
    `#!/bin/sh\n[ -e '${blockFile}' ] && exit 3\necho $$ > '${pidFile}'\nexec cat >> '${copyFile}'\n`,
    { mode: 0o755 },
  );
  server = await startServe({ simulateGpus: '1xA100-80GB', extraArgs: ['--audit-anchor-command', script] });
});

afterAll(async () => {
  if (server) await cleanupServe(server);
  rmSync(scratch, { recursive: true, force: true });
});

describe('--audit-anchor-command', () => {
  it('sends the heads to the command; /healthz and the metrics say it is up', async () => {
    await someCalls(6);
    const head = await pollFor('the anchor to receive the newest head', async () => {
      const health = await healthz();
      return health.body.auditAnchor?.unanchoredEntries === 0 ? health : undefined;
    });
    expect(head.status).toBe(200);
    expect(head.body.auditAnchor.up).toBe(true);
    expect(head.body.auditAnchor.anchoredSeq).toBeGreaterThanOrEqual(6);
    expect(copiedHeads().at(-1)![0]).toBe(head.body.auditAnchor.anchoredSeq);
    expect(await metric('gpushare_audit_anchor_up')).toBe(1);
    expect(await metric('gpushare_audit_anchor_unanchored_entries')).toBe(0);
  });

  it('keeps running while the command is down, says so, reports the unanchored range, starts it again', async () => {
    const firstPid = Number(readFileSync(pidFile, 'utf8'));
    const anchoredBefore = (await healthz()).body.auditAnchor.anchoredSeq as number;
    writeFileSync(blockFile, '');
    process.kill(firstPid, 'SIGKILL');
    const down = await pollFor('the anchor to be seen down', async () => {
      const health = await healthz();
      return health.body.auditAnchor.up === false ? health : undefined;
    });
    expect(down.status).toBe(200);
    expect(await metric('gpushare_audit_anchor_up')).toBe(0);
    // Calls are answered and recorded meanwhile; until the command runs again they are not anchored.
    await someCalls(4);
    const report = JSON.parse(verify(dataDir(), '-o', 'json').stdout);
    expect([report.ok, report.anchoredSeq]).toEqual([true, anchoredBefore]);
    expect(report.unanchored).toEqual({ fromSeq: anchoredBefore + 1, toSeq: report.head.seq });
    expect(report.head.seq).toBeGreaterThanOrEqual(anchoredBefore + 4);
    expect(verify(dataDir()).stdout).toContain(
      `entries ${anchoredBefore + 1}-${report.head.seq} not yet handed to the anchor command (the last anchored ` +
        `head is ${anchoredBefore})`,
    );
    const unanchored = await pollFor('the unanchored entries metric to count the calls', async () => {
      const value = await metric('gpushare_audit_anchor_unanchored_entries');
      return value >= 4 ? value : undefined;
    });
    expect(unanchored).toBeGreaterThanOrEqual(4);
    expect((await healthz()).body.auditAnchor.up).toBe(false);
    rmSync(blockFile);
    const back = await pollFor('the anchor to run again and catch up', async () => {
      const health = await healthz();
      const pid = Number(readFileSync(pidFile, 'utf8'));
      return health.body.auditAnchor.up === true && health.body.auditAnchor.unanchoredEntries === 0 && pid !== firstPid
        ? health
        : undefined;
    });
    expect(back.body.auditAnchor.anchoredSeq).toBeGreaterThanOrEqual(anchoredBefore + 4);
    // Once after the kill, then again after each start that found the block file.
    expect(await metric('gpushare_audit_anchor_restarts_total')).toBeGreaterThanOrEqual(1);
  });

  it("hands the last head over at a clean stop; every head of the copy matches the store's", async () => {
    await someCalls(3);
    expect(await stopServe(server!)).toBe(0);
    const report = JSON.parse(verify(dataDir(), '-o', 'json', '--anchor-file', copyFile).stdout);
    expect([report.ok, report.problems, report.unanchored, report.anchoredSeq]).toEqual([
      true,
      [],
      null,
      report.head.seq,
    ]);
    const heads = copiedHeads();
    expect(heads.at(-1)).toEqual([report.head.seq, report.head.hash]);
    expect(heads.map(([seq]) => seq)).toEqual([...new Set(heads.map(([seq]) => seq))].sort((a, b) => a - b));
  });

  it('catches a full, consistent rewrite of store and journal that plain verify passes', () => {
    const copy = join(scratch, 'rewritten');
    cpSync(dataDir(), copy, { recursive: true, filter: (source) => !source.includes(`${dataDir()}/supervisor`) });
    const db = new Database(join(copy, 'gpushare.db'));
    const triggers = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'")
      .all()
      .map((r: any) => r.sql as string);
    db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
    db.prepare("UPDATE audit_log SET actor = 'nobody' WHERE seq = 2").run();
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as any[];
    const update = db.prepare('UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?');
    const journal = [`0 ${'0'.repeat(64)}`];
    let prev = '0'.repeat(64);
    for (const r of rows) {
      const fields =
        `[${r.seq},${r.at_ms},${JSON.stringify(r.actor)},${JSON.stringify(r.role)},${JSON.stringify(r.tenant)},` +
        `${JSON.stringify(r.action)},${JSON.stringify(r.target)},${r.summary},${r.outcome}]`;
      const hash = createHash('sha256').update(`${prev}\n${fields}`, 'utf8').digest('hex');
      update.run(prev, hash, r.seq);
      journal.push(`${r.seq} ${hash}`);
      prev = hash;
    }
    for (const sql of triggers) db.exec(sql);
    db.close();
    writeFileSync(join(copy, 'audit-head'), `${journal.join('\n')}\n`);
    const plain = verify(copy);
    expect([plain.code, plain.stdout.split('\n')[0]]).toEqual([
      0,
      `${rows.length} entries verified, head ${rows.length} ${prev}`,
    ]);
    const anchored = verify(copy, '--anchor-file', copyFile);
    expect(anchored.code).toBe(4);
    // The first head the copy holds at or after the edited entry is the first one the rewrite changed.
    const firstAnchored = copiedHeads().find(([seq]) => seq >= 2)![0];
    expect(anchored.stdout).toContain(
      `audit log FAILED verification: first bad entry ${firstAnchored} (anchor-mismatch): entry ${firstAnchored} ` +
        `differs from the anchor's copy`,
    );
    const json = JSON.parse(verify(copy, '--anchor-file', copyFile, '-o', 'json').stdout);
    expect([json.ok, json.firstBad.problem, json.firstBad.seq]).toEqual([false, 'anchor-mismatch', firstAnchored]);
  });
});
