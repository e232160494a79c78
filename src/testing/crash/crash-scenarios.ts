/**
 * The scenarios of the crash harness (docs/crash-testing.md): each drives a server through the
 * API services the HTTP routes use, on simulated GPUs, with the jobs' processes ended by the test.
 * Every call that returns is acknowledged (crash-invariants.ts): what a client was told must
 * survive any crash after it.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BulkCancelSchema, type BulkCancelInput } from '../../contract/bulk-cancel.js';
import { CreateTokenSchema, SubmitJobSchema, type JobView, type SubmitJobInput } from '../../contract/api.js';
import type { FakeProcessLauncher } from '../../adapters/memory/fake-process-launcher.js';
import { openSqliteStore } from '../../adapters/store/sqlite-store.js';
import type { Acknowledged, Violation } from './crash-invariants.js';
import type { CrashWorld } from './crash-world.js';

/** What a scenario drives. */
export interface ScenarioContext {
  /** The server now (a scenario that restarts it gets a new one). */
  readonly world: CrashWorld;
  readonly launcher: FakeProcessLauncher;
  /** Submits a job as the admin; acknowledges its id. */
  submit(body: SubmitJobInput): JobView;
  /** Cancels a job as the admin; acknowledges the cancel once it returns. */
  cancel(jobId: number): Promise<void>;
  /** Cancels the jobs a selector names; acknowledges each cancelled or stopping job. */
  cancelMany(body: BulkCancelInput): void;
  /** Creates a tenant; acknowledges it. */
  createTenant(name: string): void;
  /** Creates a member token of `tenant`; returns its id. */
  createToken(tenant: string): number;
  /** Revokes a token; acknowledges the revoke. */
  revokeToken(tokenId: number): void;
  /** Writes a backup of the store (as `POST /api/v1/admin/backup` does) into a private folder; returns its path. */
  backup(): Promise<string>;
  /**
   * Restores `backupPath` as an operator would: stops the server (SIGTERM), puts the copy in place of
   * the store, starts the server again (with the same crash points). Forgets the acknowledgements of
   * what the copy does not hold.
   */
  restore(backupPath: string): Promise<void>;
  /** Moves the server's clock on by `ms` and settles. */
  advance(ms: number): Promise<void>;
}

/** A scenario: its GPUs and its steps. */
export interface Scenario {
  readonly name: string;
  /** `--simulate-gpus` spec. */
  readonly gpus: string;
  /** Launches wait until the scenario releases them (so that placing and launching come apart). */
  readonly holdLaunches?: boolean;
  run(ctx: ScenarioContext): Promise<void>;
}

const job = (command: string, gpu: SubmitJobInput['gpu'], extra: Partial<SubmitJobInput> = {}): SubmitJobInput => ({
  command: [command],
  gpu,
  ...extra,
});

/** The scenarios, in the order of the list. */
export const CRASH_SCENARIOS: readonly Scenario[] = [
  {
    name: 'submit',
    gpus: '1xA10',
    run: async (ctx) => {
      ctx.createTenant('team');
      ctx.submit(job('a', { gpuMilli: 500 }));
      ctx.submit(job('b', { gpuMilli: 500 }, { tenant: 'team' }));
      ctx.submit(job('c', { gpuMemoryMiB: 4096 }, { tenant: 'team', priority: 'high' }));
    },
  },
  {
    name: 'place',
    gpus: '2xA10',
    holdLaunches: true,
    run: async (ctx) => {
      ctx.submit(job('a', { gpuMilli: 1000 }));
      ctx.submit(job('b', { gpuMilli: 500 }));
      ctx.submit(job('c', { gpuMilli: 500 }));
      await ctx.advance(0);
      ctx.world.plane.setServerUrl('http://127.0.0.1:9');
      await ctx.advance(0);
    },
  },
  {
    name: 'launch',
    gpus: '1xA10',
    run: async (ctx) => {
      for (const name of ['a', 'b', 'c']) ctx.submit(job(name, { gpuMilli: 500 }));
      await ctx.advance(100);
    },
  },
  {
    name: 'preempt-checkpoint-resume',
    gpus: '1xT4',
    run: async (ctx) => {
      const low = ctx.submit(job('train', { gpuMilli: 1000 }, { priority: 'low' }));
      await ctx.advance(5_000);
      const critical = ctx.submit(job('infer', { gpuMilli: 1000 }, { priority: 'critical' }));
      await ctx.advance(100); // the victim saved its checkpoint and exited 0 on SIGUSR1
      ctx.launcher.exit(critical.id, { exitCode: 0 });
      await ctx.advance(100); // the victim resumes
      ctx.launcher.exit(low.id, { exitCode: 0 });
      await ctx.advance(100);
    },
  },
  {
    name: 'finish',
    gpus: '2xA10',
    run: async (ctx) => {
      const ok = ctx.submit(job('ok', { gpuMilli: 500 }));
      const bad = ctx.submit(job('bad', { gpuMilli: 500 }));
      const killed = ctx.submit(job('killed', { gpuMilli: 500 }));
      await ctx.advance(100);
      ctx.launcher.exit(ok.id, { exitCode: 0 });
      ctx.launcher.exit(bad.id, { exitCode: 3 });
      ctx.launcher.exit(killed.id, { exitCode: null, signal: 'SIGKILL' });
      await ctx.advance(100);
    },
  },
  {
    name: 'cancel',
    gpus: '1xA10',
    run: async (ctx) => {
      const running = ctx.submit(job('running', { gpuMilli: 1000 }));
      const pending = ctx.submit(job('pending', { gpuMilli: 1000 }));
      await ctx.advance(100);
      await ctx.cancel(pending.id);
      await ctx.cancel(running.id);
      await ctx.advance(100);
    },
  },
  {
    name: 'bulk-cancel',
    gpus: '2xA10',
    run: async (ctx) => {
      ctx.createTenant('team');
      for (const name of ['a', 'b', 'c', 'd']) ctx.submit(job(name, { gpuMilli: 1000 }, { tenant: 'team' }));
      await ctx.advance(100);
      ctx.cancelMany({ tenant: 'team' });
      await ctx.advance(100);
    },
  },
  {
    name: 'token-revoke',
    gpus: '1xA10',
    run: async (ctx) => {
      ctx.createTenant('team');
      const first = ctx.createToken('team');
      const second = ctx.createToken('team');
      ctx.revokeToken(first);
      ctx.submit(job('a', { gpuMilli: 500 }, { tenant: 'team' }));
      ctx.revokeToken(second);
    },
  },
  {
    name: 'mig-reconfiguration',
    gpus: '1xA100-80GB:mig',
    run: async (ctx) => {
      const small = ctx.submit(job('small', { mode: 'mig', gpuMilli: 100, gpuMemoryMiB: 5120 }));
      const medium = ctx.submit(job('medium', { mode: 'mig', gpuMilli: 400, gpuMemoryMiB: 30 * 1024 }));
      await ctx.advance(100);
      ctx.launcher.exit(small.id, { exitCode: 0 });
      ctx.launcher.exit(medium.id, { exitCode: 0 });
      await ctx.advance(100);
      // The whole GPU as one instance: the idle instances are destroyed first.
      ctx.submit(job('whole', { mode: 'mig', gpuMilli: 1000, gpuMemoryMiB: 70 * 1024 }));
      await ctx.advance(100);
    },
  },
  {
    name: 'restore-from-backup',
    gpus: '2xA10',
    run: async (ctx) => {
      const first = ctx.submit(job('first', { gpuMilli: 1000 }));
      ctx.submit(job('second', { gpuMilli: 1000 }));
      await ctx.advance(100);
      const copy = await ctx.backup();
      ctx.launcher.exit(first.id, { exitCode: 0 });
      const later = ctx.submit(job('later', { gpuMilli: 500 }));
      await ctx.advance(100);
      ctx.launcher.exit(later.id, { exitCode: 0 });
      await ctx.advance(100);
      await ctx.restore(copy);
      ctx.submit(job('after-restore', { gpuMilli: 500 }));
      await ctx.advance(100);
    },
  },
];

/**
 * The context of one run; `current` is the server now; `restart` starts a new one on the same host
 * (with `--accept-audit-problems` for the start of a restore).
 */
export function scenarioContext(
  current: () => CrashWorld,
  restart: (options: { readonly acceptAuditProblems: boolean }) => Promise<void>,
  acks: Acknowledged,
  violations: Violation[],
): ScenarioContext {
  const admin = (): CrashWorld['adminPrincipal'] => current().adminPrincipal;
  return {
    get world() {
      return current();
    },
    get launcher() {
      return current().host.launcher;
    },
    submit: (body) => {
      const view = current().jobs.submit(admin(), SubmitJobSchema.parse(body));
      if (acks.everJobIds.has(view.id)) violations.push({ code: 'job-id-reused', details: { jobId: view.id } });
      acks.jobIds.add(view.id);
      acks.everJobIds.add(view.id);
      return view;
    },
    cancel: async (jobId) => {
      await current().jobs.cancel(admin(), jobId);
      acks.cancelledJobIds.add(jobId);
    },
    cancelMany: (body) => {
      const result = current().jobs.cancelMany(admin(), BulkCancelSchema.parse(body));
      for (const id of [...result.cancelled, ...result.stopping]) acks.cancelledJobIds.add(id);
    },
    createTenant: (name) => {
      current().admin.createTenant(admin(), name);
      acks.tenants.add(name);
    },
    createToken: (tenant) =>
      current().admin.tokens.create(admin(), CreateTokenSchema.parse({ tenant, role: 'member' })).id,
    revokeToken: (tokenId) => {
      current().admin.tokens.revoke(admin(), tokenId);
      acks.revokedTokenIds.add(tokenId);
    },
    backup: async () => {
      const folder = mkdtempSync(join(dirname(current().host.dataDir), 'backup-'));
      const path = join(folder, 'gpushare.db');
      await current().admin.backup(admin(), path);
      return path;
    },
    restore: async (backupPath) => {
      // store.md "Restore": stop, the copy in place of the store, the journal aside, start accepting.
      const world = current();
      await world.stop();
      const db = join(world.host.dataDir, 'gpushare.db');
      for (const suffix of ['-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
      copyFileSync(backupPath, db);
      const journal = join(world.host.dataDir, 'audit-head');
      renameSync(journal, `${journal}.before-restore`);
      // What the copy does not hold was undone by the operator, not lost by a crash.
      const copy = openSqliteStore(backupPath, { readonly: true });
      const kept = new Set(copy.listJobs({}).map((j) => j.id));
      const revoked = new Set(
        copy
          .listTokens()
          .filter((t) => t.revokedAtMs !== null)
          .map((t) => t.id),
      );
      copy.close();
      for (const set of [acks.jobIds, acks.cancelledJobIds])
        for (const id of [...set]) if (!kept.has(id)) set.delete(id);
      for (const id of [...acks.revokedTokenIds]) if (!revoked.has(id)) acks.revokedTokenIds.delete(id);
      await restart({ acceptAuditProblems: true });
    },
    advance: (ms) => current().advance(ms),
  };
}
