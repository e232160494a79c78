/**
 * End-to-end: priorities, preemption with the checkpoint protocol, and quotas on a real server
 * with real job processes (examples/checkpoint-job.mjs honours the protocol).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupServe,
  jobFolder,
  pollFor,
  type ServeHandle,
  shellJob,
  startServe,
  stopServe,
  waitForJob,
  waitForPasses,
  untilFileExists,
} from './support/serve-harness.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'checkpoint-job.mjs');
let server: ServeHandle | null = null;
afterEach(async () => {
  if (server) await cleanupServe(server);
  server = null;
});

const terminal = (job: { state: string }) => ['succeeded', 'failed', 'cancelled'].includes(job.state);
const checkpointJob = (steps: number, gpu: Record<string, unknown>, extra: Record<string, unknown>) => ({
  command: [process.execPath, EXAMPLE, String(steps), '50'],
  workingDirectory: '/tmp',
  gpu,
  ...extra,
});
const logOf = (handle: ServeHandle, id: number, attempt: number) =>
  readFileSync(join(jobFolder(handle, id), `attempt-${attempt}.stdout.log`), 'utf8');

describe('gpushare serve: preemption with checkpoint and resume', () => {
  it(
    'a critical job preempts a low job on a full GPU; the victim checkpoints, is requeued, resumes ' +
      'and finishes right',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      const low = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          checkpointJob(60, { gpuMilli: 1000 }, { priority: 'low', name: 'victim' }),
        )
      ).body;
      expect(low.preemptible).toBe(true);
      await waitForJob(server, low.id, (j) => j.state === 'running');
      // It has made progress: its first checkpoint (every 10 steps) is written.
      const state = join(jobFolder(server, low.id), 'checkpoint', 'state.json');
      await pollFor("the victim's first checkpoint", () => (existsSync(state) ? true : undefined));
      const equal = (
        await api(server, 'POST', '/api/v1/jobs', shellJob('echo equal', { gpuMilli: 1000 }, { priority: 'low' }))
      ).body;
      await waitForPasses(server, 3);
      // equal priority never preempts
      expect((await api(server, 'GET', `/api/v1/jobs/` + `${low.id}`)).body.state).toBe('running');
      const critical = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('echo critical ran', { gpuMilli: 1000 }, { priority: 'critical' }),
        )
      ).body;
      expect(critical.preemptible).toBe(false);
      const done = await waitForJob(server, critical.id, terminal);
      expect(done.state).toBe('succeeded');
      const victim = await waitForJob(server, low.id, terminal);
      expect(victim.state).toBe('succeeded');
      expect(victim.events.map((e: { to: string }) => e.to)).toEqual([
        'pending',
        'scheduled',
        'running',
        'preempted',
        'scheduled',
        'running',
        'succeeded',
      ]);
      expect(victim.events[3].reason).toBe(`preempted by job ${critical.id} (priority 1000, tenant default)`);
      // The victim saved its checkpoint and exited 0 on the signal: still preempted, not succeeded.
      expect(victim.attempts.map((a: { endReason: string; exitCode: number }) => [a.endReason, a.exitCode])).toEqual([
        ['preempted', 0],
        ['exited', 0],
      ]);
      const first = logOf(server, low.id, 1);
      expect(first).toMatch(/^starting from step 0\ncheckpointed at step (\d+); exiting for preemption\n$/);
      const step = Number(/checkpointed at step (\d+)/.exec(first)![1]);
      expect(step).toBeGreaterThan(0);
      expect(logOf(server, low.id, 2)).toBe(
        `resumed at step ${step} (sum ${(step * (step + 1)) / 2})\ndone: sum of 1..60 = 1830\n`,
      );
      // The critical job started only after the victim had exited.
      expect(Date.parse(done.startedAt)).toBeGreaterThanOrEqual(Date.parse(victim.attempts[0].endedAt));
      expect((await waitForJob(server, equal.id, terminal)).state).toBe('succeeded');
    },
  );

  it(
    'device-level fit: a high 0.8 job preempts a low 0.6 job; a high 0.3 job short of memory ' +
      'preempts too; an impossible job preempts nothing',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      const low = (
        await api(server, 'POST', '/api/v1/jobs', shellJob('sleep 600', { gpuMilli: 600 }, { priority: 'low' }))
      ).body;
      await waitForJob(server, low.id, (j) => j.state === 'running');
      const high = (
        await api(server, 'POST', '/api/v1/jobs', shellJob('echo high', { gpuMilli: 800 }, { priority: 'high' }))
      ).body;
      expect((await waitForJob(server, high.id, terminal)).state).toBe('succeeded');
      const afterFirst = await waitForJob(server, low.id, (j) => j.state === 'running' && j.attempt === 2);
      expect(afterFirst.attempts[0].endReason).toBe('preempted');
      // 0.6 of a T4 holds 9830 MiB; 0.3 compute fits beside it, 10 GiB of memory does not.
      const memory = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('echo memory', { gpuMilli: 300, gpuMemoryMiB: 10240 }, { priority: 'high' }),
        )
      ).body;
      expect((await waitForJob(server, memory.id, terminal)).state).toBe('succeeded');
      const afterSecond = await waitForJob(server, low.id, (j) => j.state === 'running' && j.attempt === 3);
      expect(afterSecond.attempts.map((a: { endReason: string }) => a.endReason)).toEqual([
        'preempted',
        'preempted',
        null,
      ]);
      const impossible = await api(
        server,
        'POST',
        '/api/v1/jobs',
        shellJob('true', { gpuMilli: 500, gpuMemoryMiB: 20480 }, { priority: 'critical' }),
      );
      expect(impossible.status).toBe(422);
      // Refused at submit: never stored, so nothing waits for it and no pass preempts for it.
      expect((await api(server, 'GET', '/api/v1/jobs')).body.jobs.map((j: { id: number }) => j.id)).toEqual([low.id]);
      expect((await api(server, 'GET', `/api/v1/jobs/${low.id}`)).body.attempt).toBe(3);
    },
  );
});

describe('gpushare serve: quotas', () => {
  it(
    'keeps a 1.2 GPU-equivalent job of a tenant limited to 1 pending with reason quota; a tenant ' +
      'under its guarantee reclaims borrowed GPUs',
    async () => {
      server = await startServe({ simulateGpus: '2xA100-80GB' });
      for (const name of ['capped', 'owner', 'borrower'])
        expect((await api(server, 'POST', '/api/v1/tenants', { name })).status).toBe(201);
      expect(
        (
          await api(server, 'PUT', '/api/v1/tenants/capped/quota', {
            guaranteedGpuEquivalents: 1,
            limitGpuEquivalents: 1,
          })
        ).body,
      ).toMatchObject({ guaranteedGpuEquivalents: 1, limitGpuEquivalents: 1 });
      expect(
        (
          await api(server, 'PUT', '/api/v1/tenants/owner/quota', {
            guaranteedGpuEquivalents: 1,
            limitGpuEquivalents: 2,
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await api(server, 'PUT', '/api/v1/tenants/nobody/quota', {
            guaranteedGpuEquivalents: 1,
            limitGpuEquivalents: 2,
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await api(server, 'PUT', '/api/v1/tenants/owner/quota', {
            guaranteedGpuEquivalents: 2,
            limitGpuEquivalents: 1,
          })
        ).status,
      ).toBe(422);
      const capped = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('true', { gpuMilli: 600, gpuCount: 2 }, { tenant: 'capped' }),
        )
      ).body;
      const waiting = await waitForJob(server, capped.id, (j) => j.reason !== null);
      expect(waiting.state).toBe('pending');
      expect(waiting.reason).toBe(
        "quota: tenant capped: the request of 1.2 GPU-equivalents exceeds the tenant's limit of 1",
      );
      await api(server, 'POST', `/api/v1/jobs/${capped.id}/cancel`);
      // The borrower (no guarantee) takes both GPUs; the owner (guarantee 1) then needs one.
      const borrowed = [];
      for (let i = 0; i < 2; i++)
        borrowed.push(
          (
            await api(
              server,
              'POST',
              '/api/v1/jobs',
              shellJob('sleep 600', { gpuMilli: 1000 }, { tenant: 'borrower', priority: 'normal' }),
            )
          ).body.id as number,
        );
      for (const id of borrowed) await waitForJob(server, id, (j) => j.state === 'running');
      const quotas = (await api(server, 'GET', '/api/v1/quotas')).body.quotas;
      expect(quotas.find((q: { tenant: string }) => q.tenant === 'borrower')).toMatchObject({
        usedGpuEquivalents: 2,
        borrowedGpuEquivalents: 2,
        runningJobs: 2,
      });
      const owner = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('echo reclaimed', { gpuMilli: 1000 }, { tenant: 'owner', priority: 'normal' }),
        )
      ).body;
      const preemptedOne = await Promise.race(
        borrowed.map((id) =>
          waitForJob(
            server!,
            id,
            (j) =>
              j.state === 'preempted' || j.attempts.some((a: { endReason: string }) => a.endReason === 'preempted'),
          ),
        ),
      );
      expect(preemptedOne.events.find((e: { to: string }) => e.to === 'preempted').reason).toBe(
        `preempted by job ${owner.id} (priority 500, tenant owner)`,
      );
      expect((await waitForJob(server, owner.id, terminal)).state).toBe('succeeded');
    },
  );
});

describe('gpushare serve: preemption in flight', () => {
  // A victim whose checkpoint lasts until the file `gate` appears, and that finishes at once when resumed.
  const slowVictim = (gate: string) => ({
    command: [
      'sh',
      '-c',
      'if [ "$GPUSHARE_RESUME" = 1 ]; then echo resumed; exit 0; fi; ' +
        `trap "${untilFileExists(gate)}; exit 75" USR1; while :; do sleep 0.1; done`,
    ],
    workingDirectory: '/tmp',
    gpu: { gpuMilli: 1000 },
    priority: 'low',
  });

  it(
    'shows the preemptor waiting for its victim, and a restart during the checkpoint still ends the ' +
      'attempt as preempted',
    async () => {
      server = await startServe({ simulateGpus: '1xT4' });
      const gate = join(server.dataDir, 'checkpoint-done');
      const victim = (await api(server, 'POST', '/api/v1/jobs', slowVictim(gate))).body;
      await waitForJob(server, victim.id, (j) => j.state === 'running');
      const critical = (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('echo critical', { gpuMilli: 1000 }, { priority: 'critical' }),
        )
      ).body;
      await waitForJob(server, victim.id, (j) => (j.reason ?? '').startsWith('preemption requested'));
      const preemptor = await waitForJob(server, critical.id, (j) => (j.reason ?? '').startsWith('preempting'));
      expect([preemptor.reason, preemptor.reasonCode]).toEqual([
        `preempting job(s) ${victim.id}: waiting for them to checkpoint and exit`,
        'preempting',
      ]);
      await stopServe(server, 'SIGKILL');
      // The victim ends its checkpoint and exits while the server is down.
      writeFileSync(gate, '');
      const outcome = join(jobFolder(server, victim.id), 'attempt-1.outcome.json');
      await pollFor("the victim's outcome", () => (existsSync(outcome) ? true : undefined));
      const restarted = await startServe({
        simulateGpus: '1xT4',
        dataDir: server.dataDir,
        configHome: server.configHome,
      });
      Object.assign(server, { process: restarted.process, url: restarted.url });
      expect((await waitForJob(server, critical.id, terminal)).state).toBe('succeeded');
      const done = await waitForJob(server, victim.id, terminal);
      expect(done.state).toBe('succeeded');
      expect(done.attempts.map((a: { endReason: string; exitCode: number }) => [a.endReason, a.exitCode])).toEqual([
        ['preempted', 75],
        ['exited', 0],
      ]);
    },
  );

  it('a cancel during the checkpoint wins: the victim ends cancelled and does not resume', async () => {
    server = await startServe({ simulateGpus: '1xT4' });
    const gate = join(server.dataDir, 'checkpoint-done');
    const victim = (await api(server, 'POST', '/api/v1/jobs', slowVictim(gate))).body;
    await waitForJob(server, victim.id, (j) => j.state === 'running');
    await api(server, 'POST', '/api/v1/jobs', shellJob('echo critical', { gpuMilli: 1000 }, { priority: 'critical' }));
    await waitForJob(server, victim.id, (j) => (j.reason ?? '').startsWith('preemption requested'));
    expect((await api(server, 'POST', `/api/v1/jobs/${victim.id}/cancel`)).status).toBe(200);
    writeFileSync(gate, '');
    const done = await waitForJob(server, victim.id, terminal);
    expect(done.state).toBe('cancelled');
    expect(done.attempts).toHaveLength(1);
  });
});
