import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, MEMORY_STORE_BACKUP_FORMAT, type MemoryStoreBackup } from './memory-store.js';
import { describeStateStoreContract } from './store.contract.js';
import { sampleJob } from './store-fixtures.js';

describeStateStoreContract('memory', () => ({ store: createMemoryStore(), cleanup: () => undefined }));

describe('createMemoryStore backup', () => {
  it('writes the whole store as a JSON document', async () => {
    const store = createMemoryStore();
    store.createTenant('acme', 1);
    const job = store.insertJob(sampleJob('acme'), 2);
    store.applyJobChanges([{ jobId: job.id, atMs: 3, to: 'scheduled', startAttempt: 1 }]);
    store.setGpuCordoned('GPU-1', true, 4);
    const folder = mkdtempSync(join(tmpdir(), 'gpushare-memory-store-'));
    try {
      const target = join(folder, 'store.json');
      await store.backup(target);
      const document = JSON.parse(readFileSync(target, 'utf8')) as MemoryStoreBackup;
      expect(document.format).toBe(MEMORY_STORE_BACKUP_FORMAT);
      expect(document.version).toBe(1);
      expect(document.tenants).toEqual(store.listTenants());
      expect(document.jobs).toEqual(store.listJobs());
      expect(document.events).toEqual(store.listEvents(job.id));
      expect(document.attempts).toEqual(store.listAttempts(job.id));
      expect(document.cordonedGpus).toEqual([{ uuid: 'GPU-1', cordonedAtMs: 4 }]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
