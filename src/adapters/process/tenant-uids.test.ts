import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTenantUids } from './tenant-uids.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('openTenantUids', () => {
  it('gives each tenant its own uid, configured ones first, and keeps them across reopening (0600 file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uids-'));
    dirs.push(dir);
    const path = join(dir, 'tenant-uids.json');
    const settings = { configured: { ops: 200000 }, range: { first: 200000, count: 3 } };
    const uids = openTenantUids(path, settings);
    expect(uids.uidOf('ops')).toBe(200000);
    expect(uids.uidOf('team-a')).toBe(200001);
    expect(uids.uidOf('team-b')).toBe(200002);
    expect(uids.uidOf('team-a')).toBe(200001);
    expect(() => uids.uidOf('team-c')).toThrow('no free uid left in sandboxUidRange 200000-200002 for tenant team-c');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ 'team-a': 200001, 'team-b': 200002 });
    // Reopened (a restart): the same uids, and a uid once given is never given to another tenant.
    const again = openTenantUids(path, { configured: {}, range: { first: 200000, count: 4 } });
    expect(again.uidOf('team-b')).toBe(200002);
    expect(again.uidOf('team-d')).toBe(200000);
  });

  it('refuses a range or a configured uid among the system accounts', () => {
    expect(() => openTenantUids('/nonexistent/x.json', { configured: {}, range: { first: 999, count: 10 } })).toThrow(
      'sandboxUidRange must be FIRST-LAST with 1000 <= FIRST <= LAST, got 999-1008',
    );
    expect(() =>
      openTenantUids('/nonexistent/x.json', { configured: { a: 0 }, range: { first: 200000, count: 10 } }),
    ).toThrow('tenantUids.a must be an integer >= 1000, got 0');
  });
});
