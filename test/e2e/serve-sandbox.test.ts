/**
 * The job sandbox against a real server (docs/security.md): a job of tenant A tries what an attacker
 * would — the admin token, the store, the server's HOME, tenant B's folder, B's environment through
 * /proc, a root-only file, B's checkpoint — and each attempt fails, while A's own folder, its
 * checkpoint and `gpushare report` work. Its processes run under A's uid on the host, and of the
 * simulated GPU device nodes it sees only its own.
 */
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readProcStat } from '../../src/host/proc-identity.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';
import { readableCheckout, type ReadableCheckout } from '../support/readable-checkout.js';
import { requireTool } from '../support/required-tool.js';
import {
  api,
  cleanupServe,
  cli,
  jobFolder,
  pollFor,
  startServe,
  stopServe,
  waitForJob,
  type ServeHandle,
} from './support/serve-harness.js';

const BIN = resolve('bin/gpushare');
const isRoot = process.getuid?.() === 0;
if (!isRoot && process.env.GPUSHARE_REQUIRE_TOOLS === '1')
  throw new Error('the sandbox tests need root (the server switches uids); required because GPUSHARE_REQUIRE_TOOLS=1');
if (!isRoot) {
  process.stderr.write(
    'skipped: serve-sandbox.test.ts runs jobs and servers under other uids, makes cgroups and ' +
      "folders in /var/lib: it needs root (run the tests as root); this user's server is one " +
      "tenant's, without a sandbox, which the other end-to-end tests cover\n",
  );
}
const available = isRoot && requireTool('/usr/bin/bwrap', 'apt-get install bubblewrap');

/** A job's stdout so far (the admin reads it through the API). */
async function stdoutOf(handle: ServeHandle, id: number): Promise<string> {
  const { body } = await api(handle, 'GET', `/api/v1/jobs/${id}/logs?stream=stdout`);
  return (body?.text as string | undefined) ?? '';
}

/** Command name and host uid of every process of process group `pgid`, read from /proc. */
function processGroupUids(pgid: number): { comm: string; uid: number }[] {
  const out: { comm: string; uid: number }[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (readProcStat(Number(entry))?.pgrp !== pgid) continue;
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      out.push({ comm: /^Name:\s+(\S+)/m.exec(status)![1]!, uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

describe.skipIf(!available)('gpushare serve: the job sandbox', () => {
  let handle: ServeHandle;
  let scratch: string;
  const tokens: Record<string, string> = {};
  const token = (tenant: string): string => tokens[tenant]!;

  beforeAll(async () => {
    // A folder outside every hidden and private path (the repository may lie in /tmp, which jobs do
    // not see), under root's folders, world-traversable; with a copy of the CLI a job's uid can run.
    scratch = mkdtempSync('/var/lib/gpushare-e2e-sandbox-');
    chmodSync(scratch, 0o755);
    mkdirSync(join(scratch, 'home'), { mode: 0o755 });
    mkdirSync(join(scratch, 'cli', 'bin'), { recursive: true, mode: 0o755 });
    mkdirSync(join(scratch, 'cli', 'dist', 'main', 'gpushare-chunks'), { recursive: true, mode: 0o755 });
    copyFileSync(BIN, join(scratch, 'cli', 'bin', 'gpushare'));
    copyFileSync(resolve('bin/package.json'), join(scratch, 'cli', 'bin', 'package.json'));
    // The CLI bundle: its first file, the code cache's hook, the chunks it loads on demand (one per
    // command, commander, ...).
    const chunks = readdirSync(resolve('dist/main/gpushare-chunks')).map((f) => `dist/main/gpushare-chunks/${f}`);
    const first = ['dist/main/gpushare.cjs', 'dist/main/code-cache.cjs'];
    for (const file of [...first, ...chunks]) copyFileSync(resolve(file), join(scratch, 'cli', file));
    copyFileSync(resolve('package.json'), join(scratch, 'cli', 'package.json'));
    for (const dir of ['cli', 'cli/bin', 'cli/dist', 'cli/dist/main', 'cli/dist/main/gpushare-chunks'])
      chmodSync(join(scratch, dir), 0o755);
    for (const file of [
      'cli/bin/gpushare',
      'cli/bin/package.json',
      ...first.map((f) => `cli/${f}`),
      'cli/package.json',
      ...chunks.map((f) => `cli/${f}`),
    ])
      chmodSync(join(scratch, file), 0o755);
    writeFileSync(join(scratch, 'root-only'), 'planted secret\n', { mode: 0o600 });
    writeFileSync(join(scratch, 'home', 'server-secret'), 'server home secret\n', { mode: 0o644 });
    // The data directory where others may pass (as /var/lib): sandboxes start under the tenants'
    // uids, in a user namespace of their own.
    const serverDir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-sandbox-server-'));
    chmodSync(serverDir, 0o711);
    handle = await startServe({
      dataDir: serverDir,
      simulateGpus: '4xA100-80GB',
      config: { singleTenant: false },
      env: { HOME: join(scratch, 'home') },
      inheritedPipe: true,
    });
    for (const tenant of ['team-a', 'team-b']) {
      expect((await api(handle, 'POST', '/api/v1/tenants', { name: tenant })).status).toBe(201);
      tokens[tenant] = (await api(handle, 'POST', '/api/v1/tokens', { tenant, label: tenant })).body.token as string;
    }
  });

  afterAll(async () => {
    if (handle) await cleanupServe(handle);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  // Each test starts from idle GPUs, whatever the one before left running.
  afterEach(async () => {
    const active = (await api(handle, 'GET', '/api/v1/jobs')).body.jobs as { id: number }[];
    for (const job of active) await api(handle, 'POST', `/api/v1/jobs/${job.id}/cancel`);
    for (const job of active)
      await waitForJob(handle, job.id, (j) => ['cancelled', 'succeeded', 'failed'].includes(j.state));
  });

  it(
    "gives the command's host pid: the process bubblewrap's init started (pid 2 inside), under the " +
      "tenant's uid, not bubblewrap",
    async () => {
      const job = await api(
        handle,
        'POST',
        '/api/v1/jobs',
        { command: ['/bin/sleep', '600.5'], gpu: { gpuCount: 1, gpuMilli: 500, mode: 'timeslice' } },
        token('team-a'),
      );
      expect(job.status).toBe(201);
      const running = await waitForJob(handle, job.body.id, (j) => j.state === 'running');
      const pid = running.pid as number;
      const jobPid = (
        JSON.parse(readFileSync(join(jobFolder(handle, job.body.id), 'attempt-1.pid'), 'utf8')) as { jobPid: number }
      ).jobPid;
      expect(pid).not.toBe(jobPid);
      // The pid is known from the fork on; on a loaded machine the exec of the command may come a
      // moment after the job reads running. The same pid then runs the command.
      const cmdline = await pollFor(
        `pid ${pid} running /bin/sleep`,
        () => {
          const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          return text.startsWith('/usr/bin/bwrap\u0000') ? undefined : text;
        },
        WAIT_MS,
      );
      expect(cmdline).toBe('/bin/sleep\u0000600.5\u0000');
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^NSpid:\s+(\d+)\s+(\d+)$/m.exec(status)?.slice(1)).toEqual([String(pid), '2']);
      const uid = (await api(handle, 'GET', '/api/v1/tenants')).body.tenants.find(
        (t: { name: string }) => t.name === 'team-a',
      ).unixUid as number;
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(uid));
      expect(running.events.at(-1).reason).toBe(`attempt 1 started (pid ${pid})`);
    },
  );

  it(
    'a submit without --workdir from a folder the tenant cannot write runs in a private working ' +
      'directory and says why; a named --workdir there stays an error',
    async () => {
      // A folder of root's, mode 0755, as a repository checked out by root is.
      const repo = join(scratch, 'repo');
      mkdirSync(repo, { mode: 0o755 });
      chmodSync(repo, 0o755);
      const uid = (await api(handle, 'GET', '/api/v1/tenants')).body.tenants.find(
        (t: { name: string }) => t.name === 'team-a',
      ).unixUid as number;
      const why =
        `runs in a private working directory (in its job folder): ${repo} cannot be its own ("${repo}" is ` +
        `not writable by uid ${uid}, which runs tenant team-a's jobs)`;
      const submitted = cli(
        handle,
        ['submit', '--tenant', 'team-a', '--gpu', '0.5', '--', 'sh', '-c', 'pwd; sleep 1'],
        repo,
      );
      expect(submitted.stderr).toBe('');
      expect(submitted.code).toBe(0);
      const lines = submitted.stdout.trim().split('\n');
      const id = Number(lines.at(-1));
      expect(lines.slice(1, -1)).toEqual([`note: ${why} [workdir-not-writable]`]);
      const done = await waitForJob(handle, id, (j) => j.state === 'succeeded');
      expect(done.workingDirectory).toBeNull();
      expect(done.workingDirectoryReason).toEqual({
        code: 'workdir-not-writable',
        requestedDirectory: repo,
        reason: why,
      });
      expect(done.events[1]).toMatchObject({ from: 'pending', to: 'pending', reasonCode: 'workdir-not-writable' });
      expect(await stdoutOf(handle, id)).toBe(`${join(jobFolder(handle, id), 'work')}\n`);
      expect(cli(handle, ['show', String(id)]).stdout).toContain(`${why} [workdir-not-writable]`);

      const named = cli(handle, ['submit', '--tenant', 'team-a', '--workdir', repo, '--', 'sleep', '1'], repo);
      expect(named.code).not.toBe(0);
      expect(named.stderr).toContain(`workingDirectory: "${repo}" is not writable by uid ${uid}`);
    },
  );

  it('a status that says jobs are sandboxed', async () => {
    const { body } = await api(handle, 'GET', '/api/v1/status');
    expect(body.isolation).toEqual({
      sandboxed: true,
      detail: "each job runs under its tenant's own uid in a bubblewrap sandbox, in a user namespace of its own",
    });
  });

  it(
    "keeps tenant A from everything but its own, on a host uid of its own and with only its GPU's " + 'device node',
    async () => {
      // Tenant B: a secret in its environment and a checkpoint; it keeps running.
      const b = await api(
        handle,
        'POST',
        '/api/v1/jobs',
        {
          command: [
            '/bin/sh',
            '-c',
            'echo "ckpt=$GPUSHARE_CHECKPOINT_DIR"; echo saved > "$GPUSHARE_CHECKPOINT_DIR/state"; exec sleep 600',
          ],
          environment: { B_SECRET: 'hunter2' },
          gpu: { gpuCount: 1, gpuMilli: 1000, mode: 'exclusive' },
        },
        token('team-b'),
      );
      expect(b.status).toBe(201);
      await waitForJob(handle, b.body.id, (j) => j.state === 'running');
      const bCheckpoint = await pollFor(
        'job B to print its checkpoint folder',
        async () => /ckpt=(\S+)/.exec(await stdoutOf(handle, b.body.id))?.[1],
      );
      const bFolder = jobFolder(handle, b.body.id);
      const bPid = (JSON.parse(readFileSync(join(bFolder, 'attempt-1.pid'), 'utf8')) as { jobPid: number }).jobPid;
      const data = join(handle.dataDir, 'data');
      // The job's variables never reach the root processes that set the sandbox up, and no secret is in any argv.
      // (bubblewrap's own: the supervisor's PATH, nothing else.)
      expect(
        readFileSync(`/proc/${bPid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((v) => v.split('=')[0]),
      ).toEqual(['PATH']);
      expect(readFileSync(`/proc/${bPid}/environ`, 'utf8')).toContain('PATH=/usr/sbin:/usr/bin:/sbin:/bin\0');
      // bubblewrap's outer process (the supervisor's group) and the command's session: its init, the command.
      const bCommandPid = (JSON.parse(readFileSync(join(bFolder, 'attempt-1.pid'), 'utf8')) as { commandPid: number })
        .commandPid;
      const bGroups = [bPid, readProcStat(bCommandPid)!.pgrp];
      const bGroup = readdirSync('/proc').filter(
        (e) => /^\d+$/.test(e) && bGroups.includes(readProcStat(Number(e))?.pgrp ?? -1),
      );
      expect(bGroup.length).toBeGreaterThanOrEqual(3);
      for (const pid of bGroup) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('hunter2');

      // Tenant A: one probe per line, "<name> ok" or "<name> denied", then it waits to be inspected.
      const script = [
        'p() { n=$1; shift; if "$@" >/dev/null 2>&1; then echo "$n ok"; else echo "$n denied"; fi; }',
        `p admin-token cat "${data}/admin-token"`,
        `p store cat "${data}/gpushare.db"`,
        `p server-home cat "${join(scratch, 'home', 'server-secret')}"`,
        `p b-folder ls "${bFolder}"`,
        `p b-environ grep -q hunter2 "/proc/${bPid}/environ"`,
        `p b-environ-any sh -c 'grep -qs hunter2 /proc/[0-9]*/environ'`,
        `p root-only-file cat "${join(scratch, 'root-only')}"`,
        `p b-checkpoint-write sh -c 'echo evil > "${bCheckpoint}/evil"'`,
        // No user namespace of its own (capabilities in it), no capability at all.
        'p new-user-namespace unshare -U -r true',
        'p capabilities sh -c \'! grep -q "^CapEff:.*[1-9a-f]" /proc/self/status\'',
        'p own-workdir sh -c \'echo mine > ./mine && test "$(cat ./mine)" = mine\'',
        'p own-checkpoint sh -c \'echo mine > "$GPUSHARE_CHECKPOINT_DIR/mine"\'',
        "p own-tmp sh -c 'echo mine > /tmp/mine'",
        `p report ${process.execPath} ${join(scratch, 'cli', 'bin', 'gpushare')} report --step-seconds 0.5`,
        'echo "uid $(id -u)"',
        'echo "fds $(ls /proc/self/fd | sort -n | tr "\\n" " ")"',
        'echo "devices $(ls /dev | grep "^nvidia" | tr "\\n" " ")"',
        'echo "env $(sed -z "s/=.*//" /proc/self/environ | tr "\\0" "\\n" | sort | tr "\\n" " ")"',
        'echo probes-done',
        'exec sleep 600',
      ].join('\n');
      const a = await api(
        handle,
        'POST',
        '/api/v1/jobs',
        {
          command: ['/bin/sh', '-c', script],
          gpu: { gpuCount: 1, gpuMilli: 1000, mode: 'exclusive' },
          qos: { stepSeconds: 1 },
        },
        token('team-a'),
      );
      expect(a.status).toBe(201);
      const output = await pollFor("job A's probes", async () => {
        const text = await stdoutOf(handle, a.body.id);
        return text.includes('probes-done') ? text : undefined;
      });
      const results = Object.fromEntries(
        output
          .split('\n')
          .filter((l) => / (ok|denied)$/.test(l))
          .map((l) => l.split(' ') as [string, string]),
      );
      expect(results).toEqual({
        'admin-token': 'denied',
        store: 'denied',
        'server-home': 'denied',
        'b-folder': 'denied',
        'b-environ': 'denied',
        'b-environ-any': 'denied',
        'root-only-file': 'denied',
        'b-checkpoint-write': 'denied',
        'new-user-namespace': 'denied',
        capabilities: 'ok',
        'own-workdir': 'ok',
        'own-checkpoint': 'ok',
        'own-tmp': 'ok',
        report: 'ok',
      });
      // Nothing the server inherited reaches the job: stdin, stdout, stderr, and the descriptor ls reads /proc with.
      expect(/fds (.*)/.exec(output)![1]!.trim().split(' ')).toEqual(['0', '1', '2', '3']);
      // B's checkpoint is untouched and A's own files are where A put them.
      expect(readdirSync(bCheckpoint)).toEqual(['state']);
      const aFolder = jobFolder(handle, a.body.id);
      expect(readFileSync(join(aFolder, 'work', 'mine'), 'utf8')).toBe('mine\n');
      expect(readFileSync(join(aFolder, 'checkpoint', 'mine'), 'utf8')).toBe('mine\n');

      // The host uid of A's processes, read from /proc outside the sandbox: A's own, not root, not B's.
      const uids = JSON.parse(readFileSync(join(data, 'tenant-uids.json'), 'utf8')) as Record<string, number>;
      expect(uids['team-a']).toBeGreaterThanOrEqual(200000);
      expect(uids['team-b']).not.toBe(uids['team-a']);
      expect(output).toContain(`uid ${uids['team-a']}\n`);
      // The supervisor's group holds bubblewrap alone (already A's uid: nothing of the sandbox runs as
      // root; it sets the sandbox up in a user namespace, then only waits); the command runs in a
      // session of its own with bubblewrap's init (pid 1 inside, which ignores the signals sent to the
      // group from outside), where the forwarded signals go.
      const aPids = JSON.parse(readFileSync(join(jobFolder(handle, a.body.id), 'attempt-1.pid'), 'utf8')) as {
        jobPid: number;
        commandPid: number;
      };
      expect(processGroupUids(aPids.jobPid)).toEqual([{ comm: 'bwrap', uid: uids['team-a'] }]);
      const group = processGroupUids(readProcStat(aPids.commandPid)!.pgrp);
      expect(group.filter((p) => p.comm !== 'bwrap')).toEqual([{ comm: 'sleep', uid: uids['team-a'] }]);
      expect(group.filter((p) => p.comm === 'bwrap')).toEqual([{ comm: 'bwrap', uid: uids['team-a'] }]);
      // Job folders are passable (0711), never listable, and every file the server keeps in them is root's alone.
      const aFiles = readdirSync(aFolder).map((name) => {
        const stat = statSync(join(aFolder, name));
        return `${name} ${stat.uid === 0 ? 'root' : stat.uid} ${(stat.mode & 0o777).toString(8)}`;
      });
      expect(aFiles.sort()).toEqual(
        [
          `checkpoint ${uids['team-a']} 700`,
          'attempt-1.pid root 600',
          'attempt-1.stderr.log root 600',
          'attempt-1.stdout.log root 600',
          `work ${uids['team-a']} 700`,
        ].sort(),
      );
      expect([data, join(data, 'jobs'), aFolder].map((d) => (statSync(d).mode & 0o777).toString(8))).toEqual([
        '711',
        '711',
        '711',
      ]);

      // Only its own GPU's node (plus the control nodes) of the four simulated ones.
      const view = (await api(handle, 'GET', `/api/v1/jobs/${a.body.id}`)).body;
      const gpuIndex = view.placement.gpus[0].index as number;
      expect(/devices (.*)/.exec(output)![1]!.trim().split(' ').sort()).toEqual(
        [`nvidia${gpuIndex}`, 'nvidia-uvm', 'nvidia-uvm-tools', 'nvidiactl'].sort(),
      );
      // A clean environment: nothing of the server's (its HOME was the scratch folder).
      expect(output).not.toContain(join(scratch, 'home'));
      expect(
        /env (.*)/
          .exec(output)![1]!
          .trim()
          .split(' ')
          .filter((k) => !k.startsWith('GPUSHARE_') && !k.startsWith('CUDA_')),
      ).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']);

      for (const id of [a.body.id, b.body.id])
        expect((await api(handle, 'POST', `/api/v1/jobs/${id}/cancel`)).status).toBe(200);
      await waitForJob(handle, a.body.id, (j) => j.state === 'cancelled');
    },
  );

  it(
    'a sandboxed victim gets the preemption signal, checkpoints, exits 0, is requeued as preempted ' +
      'and resumes; a cancel ends it by SIGTERM',
    async () => {
      // Four whole GPUs for the low job of A; B's critical job needs one of them.
      const victim = (
        await api(
          handle,
          'POST',
          '/api/v1/jobs',
          {
            command: [
              '/bin/sh',
              '-c',
              [
                'if [ "$GPUSHARE_RESUME" = 1 ]; then echo "resumed from $(cat ' +
                  '"$GPUSHARE_CHECKPOINT_DIR/step")"; exit 0; fi',
                'trap \'echo 7 > "$GPUSHARE_CHECKPOINT_DIR/step"; echo checkpointed; exit 0\' USR1',
                'echo started; while :; do sleep 0.1; done',
              ].join('\n'),
            ],
            gpu: { gpuCount: 4, gpuMilli: 1000, mode: 'exclusive' },
            priority: 'low',
          },
          token('team-a'),
        )
      ).body;
      await pollFor('the victim to start', async () =>
        (await stdoutOf(handle, victim.id)).includes('started') ? true : undefined,
      );
      // A new tenant may submit up to normal: an admin lets team-b submit at critical.
      expect((await api(handle, 'PUT', '/api/v1/tenants/team-b/limits', { maxPriorityClass: 'critical' })).status).toBe(
        200,
      );
      const submitted = await api(
        handle,
        'POST',
        '/api/v1/jobs',
        { command: ['/bin/true'], gpu: { gpuCount: 1, gpuMilli: 1000, mode: 'exclusive' }, priority: 'critical' },
        token('team-b'),
      );
      expect(submitted.status).toBe(201);
      const critical = submitted.body;
      const done = await waitForJob(handle, victim.id, (j) => j.state === 'succeeded');
      expect(
        done.attempts.map((x: { endReason: string; exitCode: number | null }) => [x.endReason, x.exitCode]),
      ).toEqual([
        ['preempted', 0],
        ['exited', 0],
      ]);
      expect(done.events.find((e: { to: string }) => e.to === 'preempted').reason).toBe(
        `preempted by job ${critical.id} (priority 1000, tenant team-b)`,
      );
      // Team-a's own view never names team-b's job.
      const seenByA = (await api(handle, 'GET', `/api/v1/jobs/${victim.id}`, undefined, token('team-a'))).body;
      expect(seenByA.events.find((e: { to: string }) => e.to === 'preempted').reason).toBe(
        "preempted by another tenant's job (priority 1000)",
      );
      const { body } = await api(handle, 'GET', `/api/v1/jobs/${victim.id}/logs?stream=stdout&attempt=2`);
      expect(body.text).toBe('resumed from 7\n');

      // A command without a handler dies of SIGTERM on cancel; the outcome names the signal, not bubblewrap's 143.
      const plain = (
        await api(
          handle,
          'POST',
          '/api/v1/jobs',
          { command: ['/bin/sh', '-c', 'echo started; exec sleep 600'], gpu: { gpuCount: 1, gpuMilli: 100 } },
          token('team-a'),
        )
      ).body;
      // Once the command runs (a signal before that, while the sandbox is set up, is ignored and the stop falls back to
      // SIGKILL).
      await pollFor('the sleep to run sandboxed', async () =>
        (await stdoutOf(handle, plain.id)).includes('started') ? true : undefined,
      );
      expect((await api(handle, 'POST', `/api/v1/jobs/${plain.id}/cancel`)).status).toBe(200);
      const cancelled = await waitForJob(handle, plain.id, (j) => j.state === 'cancelled');
      expect([cancelled.attempts[0].exitCode, cancelled.attempts[0].signal]).toEqual([null, 'SIGTERM']);
    },
  );

  it(
    "takes only a working directory whose bind cannot be redirected: writable by the tenant's uid, " +
      'written as it resolves, under folders only root may change; each refusal a 422 naming the field',
    async () => {
      const submitIn = async (workingDirectory: string): ReturnType<typeof api> =>
        api(
          handle,
          'POST',
          '/api/v1/jobs',
          { command: ['/bin/sh', '-c', 'echo hi > out'], workingDirectory, gpu: { gpuCount: 1, gpuMilli: 100 } },
          token('team-a'),
        );
      const refusal = async (workingDirectory: string): Promise<string> => {
        const { status, body } = await submitIn(workingDirectory);
        expect([status, body.error.details.field]).toEqual([422, 'workingDirectory']);
        const hint = ' (give a folder jobs may use, or none for a private one: gpushare submit --private-workdir)';
        expect((body.error.message as string).endsWith(hint)).toBe(true);
        return (body.error.message as string).slice(0, -hint.length);
      };
      const data = join(handle.dataDir, 'data');
      const unusable = (p: string): string => `workingDirectory: "${p}" is not a folder that jobs can use`;
      const readOnly = join(scratch, 'read-only');
      mkdirSync(readOnly, { mode: 0o755 });
      expect(await refusal(readOnly)).toMatch(
        new RegExp(`^workingDirectory: "${readOnly}" is not writable by uid \\d+, which runs tenant team-a's jobs$`),
      );
      // Hidden and private folders, what lies inside them and what holds them: refused by name, nothing probed.
      expect(await refusal(data)).toBe(
        `${unusable(data)}: it is, holds or lies inside ${data}, which jobs cannot see or get a private copy of`,
      );
      expect(await refusal(join(data, 'no-such-folder'))).toBe(
        `${unusable(join(data, 'no-such-folder'))}: it is, holds or lies inside ${data}, which jobs cannot ` +
          `see or get a private copy of`,
      );
      expect(await refusal('/tmp')).toMatch(
        new RegExp(
          /^workingDirectory: "\/tmp" is not a folder that jobs can use: it is, holds /.source +
            /or lies inside \/tmp(\/\S+)?, which jobs cannot see or get a private copy of$/.source,
        ),
      );
      expect(await refusal('/dev/shm/x')).toBe(
        `${unusable('/dev/shm/x')}: it is, holds or lies inside /dev/shm, which jobs cannot see or get a ` +
          `private copy of`,
      );
      expect(await refusal('/')).toMatch(new RegExp(`^${unusable('/')}: it is, holds or lies inside `));
      // A symbolic link, or "..", could make bubblewrap bind one folder on the host and another inside the sandbox.
      const shared = join(scratch, 'shared');
      mkdirSync(join(shared, 'sub'), { recursive: true, mode: 0o777 });
      chmodSync(shared, 0o777);
      chmodSync(join(shared, 'sub'), 0o777);
      symlinkSync(shared, join(scratch, 'link'));
      expect(await refusal(join(scratch, 'link'))).toBe(
        `${unusable(join(scratch, 'link'))}: give it as it resolves, without symbolic links, "." or ".."`,
      );
      expect(await refusal(`${shared}/sub/..`)).toBe(
        `${unusable(`${shared}/sub/..`)}: give it as it resolves, without symbolic links, "." or ".."`,
      );
      // A link into the data directory (which the tenant's uid may pass, never list) is a link.
      symlinkSync(join(data, 'jobs'), join(scratch, 'into-data'));
      expect(await refusal(join(scratch, 'into-data'))).toBe(
        `${unusable(join(scratch, 'into-data'))}: give it as it resolves, without symbolic links, "." or ".."`,
      );
      // A folder under one the tenant may change: it could swap it for a link after the check.
      expect(await refusal(join(shared, 'sub'))).toBe(
        `${unusable(join(shared, 'sub'))}: ${shared} above it may be changed by uid 0 or by others (mode ` +
          `777); every folder above a working directory must be root's and writable only by root`,
      );
      // A shared scratch folder (sticky) is nobody's own.
      const sticky = join(scratch, 'sticky');
      mkdirSync(sticky);
      chmodSync(sticky, 0o1777);
      expect(await refusal(sticky)).toBe(`${unusable(sticky)}: it is a shared folder (sticky bit), not one tenant's`);
      // The tenant's own folder (an admin made it under root's folders), but others may read it: every tenant sees the
      // host read-only.
      const uidA = (
        (await api(handle, 'GET', '/api/v1/tenants')).body.tenants as { name: string; unixUid: number }[]
      ).find((t) => t.name === 'team-a')!.unixUid;
      const own = join(scratch, 'team-a');
      mkdirSync(own, { mode: 0o755 });
      chmodSync(own, 0o755);
      chownSync(own, uidA, uidA);
      expect(await refusal(own)).toBe(
        `${unusable(own)}: others may read or enter it (mode 755); make it the tenant's own, e.g. chown ` +
          `${uidA} and chmod 700`,
      );
      // Made private, it is accepted and stays writable inside; what the job writes is its own (umask 077).
      chmodSync(own, 0o700);
      const ok = await submitIn(own);
      expect(ok.status).toBe(201);
      await waitForJob(handle, ok.body.id, (j) => j.state === 'succeeded');
      expect(readFileSync(join(own, 'out'), 'utf8')).toBe('hi\n');
      expect([statSync(join(own, 'out')).uid, statSync(join(own, 'out')).mode & 0o777]).toEqual([uidA, 0o600]);
      // A program in a hidden folder, or in the host's /tmp (jobs have their own), is as absent as a missing one.
      // Nor does a submit tell whether a program exists in a folder the tenant's uid cannot enter.
      writeFileSync(join(tmpdir(), `gpushare-sandbox-prog-${process.pid}`), '#!/bin/sh\n', { mode: 0o755 });
      mkdirSync(join(scratch, 'closed'), { mode: 0o700 });
      writeFileSync(join(scratch, 'closed', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
      for (const program of [
        join(scratch, 'home', 'server-secret'),
        join(tmpdir(), `gpushare-sandbox-prog-${process.pid}`),
        join(scratch, 'closed', 'tool'),
      ]) {
        const refused = await api(
          handle,
          'POST',
          '/api/v1/jobs',
          { command: [program], gpu: { gpuCount: 1, gpuMilli: 100 } },
          token('team-a'),
        );
        expect([refused.status, refused.body.error.message]).toEqual([
          422,
          `command: program "${program}" was not found, is not executable, or lies where jobs cannot see it ` +
            `on the server (looked up relative to /)`,
        ]);
      }
      rmSync(join(tmpdir(), `gpushare-sandbox-prog-${process.pid}`));
      // The admin sees each tenant's uid, the one a working directory must be writable by.
      const uids = JSON.parse(readFileSync(join(data, 'tenant-uids.json'), 'utf8')) as Record<string, number>;
      const tenants = (await api(handle, 'GET', '/api/v1/tenants')).body.tenants as { name: string; unixUid: number }[];
      expect(tenants.find((t) => t.name === 'team-a')?.unixUid).toBe(uids['team-a']);
    },
  );

  it('under a folder others cannot pass, sandboxes start as root, then setpriv and a shell switch uids', async () => {
    // mkdtemp makes a 0700 folder: a sandbox under the tenant's uid could not reach the job folders in it.
    const closed = mkdtempSync(join(tmpdir(), 'gpushare-e2e-sandbox-closed-'));
    const server = await startServe({
      dataDir: closed,
      simulateGpus: '1xA100-80GB',
      config: { singleTenant: false },
      env: { HOME: closed },
    });
    try {
      expect((await api(server, 'GET', '/api/v1/status')).body.isolation.detail).toBe(
        "each job runs under its tenant's own uid in a bubblewrap sandbox set up as root, then setpriv",
      );
      expect(server.stderr).toContain(`others cannot pass ${closed} above the data directory`);
      expect((await api(server, 'POST', '/api/v1/tenants', { name: 'team-c' })).status).toBe(201);
      const tokenC = (await api(server, 'POST', '/api/v1/tokens', { tenant: 'team-c', label: 'c' })).body.token;
      const job = await api(
        server,
        'POST',
        '/api/v1/jobs',
        {
          command: ['/bin/sh', '-c', 'echo "uid $(id -u) umask $(umask) v $C_VALUE"; echo x > out; stat -c %a out'],
          environment: { C_VALUE: "it's $HOME" },
          gpu: { gpuCount: 1, gpuMilli: 500 },
        },
        tokenC as string,
      );
      expect(job.status).toBe(201);
      await waitForJob(server, job.body.id, (j) => j.state === 'succeeded');
      const uidC = (
        JSON.parse(readFileSync(join(closed, 'data', 'tenant-uids.json'), 'utf8')) as Record<string, number>
      )['team-c'];
      expect(await stdoutOf(server, job.body.id)).toBe(`uid ${uidC} umask 0077 v it's $HOME\n600\n`);
      // The data directory and its job folders stay private to root.
      const data = join(closed, 'data');
      expect([data, join(data, 'jobs'), jobFolder(server, job.body.id)].map((d) => statSync(d).mode & 0o777)).toEqual([
        0o700, 0o700, 0o700,
      ]);
    } finally {
      await cleanupServe(server);
    }
  });
});

describe.skipIf(!isRoot)('gpushare serve: without a sandbox, one tenant unless --single-tenant', () => {
  const UID = 60_123;
  let dir: string;
  // The server runs as UID: from this checkout, or from a copy UID can read when this one lies in
  // a folder other users cannot enter (root's home folder, a 0700 temporary folder).
  let checkout: ReadableCheckout | undefined;
  let bin: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpushare-nosandbox-'));
    chownSync(dir, UID, UID);
    checkout = readableCheckout(UID);
    bin = checkout.bin;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    checkout?.remove();
  });

  it(
    'a server that cannot switch uids accepts one tenant, says so, and refuses a data directory of ' +
      'two tenants until --single-tenant',
    async () => {
      // An unprivileged server cannot run jobs under other uids: no sandbox.
      let handle = await startServe({
        dataDir: dir,
        simulateGpus: '1xA100-80GB',
        config: { singleTenant: false },
        uid: UID,
        bin,
        env: { HOME: dir },
      });
      try {
        const status = (await api(handle, 'GET', '/api/v1/status')).body;
        expect(status.isolation).toEqual({
          sandboxed: false,
          detail:
            'no sandbox (the server does not run as root, so it cannot run jobs under other uids): one ' +
            'tenant only; --single-tenant allows more without isolation',
        });
        expect(handle.stderr).toContain(
          'jobs cannot be sandboxed (the server does not run as root, so it cannot run jobs under other ' +
            'uids): this server accepts one tenant only',
        );
        const refused = await api(handle, 'POST', '/api/v1/tenants', { name: 'team-a' });
        expect(refused.status).toBe(409);
        expect(refused.body.error.message).toBe(`this server accepts 1 tenant only: ${status.isolation.detail}`);
        expect((await api(handle, 'GET', '/api/v1/tenants')).body.tenants.map((t: { name: string }) => t.name)).toEqual(
          ['default'],
        );
      } finally {
        await stopServe(handle);
      }
      // With --single-tenant (warned) a second tenant is accepted...
      handle = await startServe({
        dataDir: dir,
        simulateGpus: '1xA100-80GB',
        uid: UID,
        bin,
        env: { HOME: dir },
        extraArgs: ['--single-tenant'],
      });
      try {
        expect(handle.stderr).toContain(
          `--single-tenant: jobs run as this server's user (uid ${UID}) without a sandbox`,
        );
        expect((await api(handle, 'POST', '/api/v1/tenants', { name: 'team-a' })).status).toBe(201);
      } finally {
        await stopServe(handle);
      }
      // ...and without it the server refuses to start on that data directory.
      await expect(
        startServe({
          dataDir: dir,
          simulateGpus: '1xA100-80GB',
          config: { singleTenant: false },
          uid: UID,
          bin,
          env: { HOME: dir },
        }),
      ).rejects.toThrow(
        'this data directory has 2 tenants (default, team-a), but jobs cannot be sandboxed here: the ' +
          'server does not run as root',
      );
    },
  );
});

describe.skipIf(!isRoot)('gpushare serve: nothing left on the host', () => {
  it('a stopped server removes the cgroup folder it made for its jobs once none of them runs', async () => {
    const handle = await startServe({ simulateGpus: '1xT4' });
    try {
      const parent = join(
        '/sys/fs/cgroup',
        `gpushare-${createHash('sha256').update(join(handle.dataDir, 'data')).digest('hex').slice(0, 12)}`,
      );
      const made = existsSync(parent);
      const done = await api(handle, 'POST', '/api/v1/jobs', {
        command: ['/bin/true'],
        workingDirectory: '/tmp',
        gpu: { gpuCount: 1, gpuMilli: 100 },
      });
      await waitForJob(handle, done.body.id, (j) => j.state === 'succeeded');
      expect(await stopServe(handle)).toBe(0);
      // Where the host has a cgroup v2 hierarchy the server could write, it made the folder and removed it.
      if (made) expect(existsSync(parent)).toBe(false);
    } finally {
      await cleanupServe(handle);
    }
  });
});
