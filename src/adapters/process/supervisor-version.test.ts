/**
 * A supervisor of an earlier release (protocol 1) would ignore `runAs` and start a user-namespace
 * sandbox as root, mapping the tenant's uid onto root's (decision 0036): the launcher never sends
 * it such a launch. The supervisor here is a stand-in that answers `hello` on the real socket.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { readProcessStartTime } from '../../host/proc-identity.js';
import { createChildProcessLauncher } from './child-process-launcher.js';
import type { JobSandbox } from './sandbox.js';
import { ensurePrivateDirectory, readMessages, SOCKET_NAME, sendMessage } from './supervisor-protocol.js';
import {
  compiledSupervisorPath,
  makeJobDirectory,
  removeTemporaryDirectories,
  removeTestCgroupParent,
  TEST_ENV,
  testCgroupParent,
} from './testing/process-test-kit.js';

/** A sandbox of the user-namespace chain whose command line is fixed (no host checks). */
const sandbox = {
  chain: 'user-namespace',
  programs: { bwrap: '/usr/bin/bwrap', setpriv: '/usr/bin/setpriv', shell: '/bin/sh' },
  hiddenDirectories: [],
  isInvisible: () => false,
  canRun: () => true,
  uidOf: () => 200_123,
  devicesFor: () => [],
  workingDirectoryProblem: () => null,
  commandLine: () => ['/usr/bin/bwrap', '--unshare-user', '--uid', '200123', '--', '/bin/true'],
} satisfies JobSandbox;

describe('a supervisor of an earlier protocol', () => {
  const directory = join(makeJobDirectory(), 'supervisor');
  const requests: string[] = [];
  const sockets: Socket[] = [];
  const cgroupParent = testCgroupParent('supervisor-version');
  let server: Server;

  beforeAll(async () => {
    ensurePrivateDirectory(directory);
    server = createServer((socket) => {
      sockets.push(socket);
      readMessages(socket, (message) => {
        const { id, op } = message as { id: number; op: string };
        requests.push(op);
        if (op === 'hello')
          sendMessage(socket, {
            id,
            ok: true,
            op: 'hello',
            pid: process.pid,
            startTime: readProcessStartTime(process.pid) ?? '',
            attempts: 0,
            version: 1,
          });
      });
    });
    await new Promise<void>((resolve) => server.listen(join(directory, SOCKET_NAME), resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    removeTestCgroupParent(cgroupParent);
    removeTemporaryDirectories();
  });

  it('gets no launch that starts bubblewrap under a tenant uid, and the attempt fails naming it', async () => {
    // The real supervisor is never started: the stand-in already answers on the socket.
    const launcher = createChildProcessLauncher({
      cgroupParent,
      supervisorPath: compiledSupervisorPath(),
      supervisorDirectory: directory,
      sandbox,
    });
    const jobDirectory = makeJobDirectory();
    onTestFinished(() => launcher.close());
    await expect(
      launcher.start({
        jobId: 7,
        attempt: 1,
        argv: ['/bin/true'],
        workingDirectory: jobDirectory,
        environment: TEST_ENV,
        jobDirectory,
        cpuMilli: 0,
        hostMemoryMiB: 0,
        sandbox: { tenant: 'team-a', gpuMinors: [], migInstances: [], ownedDirectories: [], sharedDirectories: [] },
      }),
    ).rejects.toThrow(
      `cannot start job 7 attempt 1: the supervisor (pid ${process.pid}) is from an earlier release (protocol 1) ` +
        "and cannot start sandboxed jobs under their tenant's uid",
    );
    // It was asked who it is, never to start anything; no launch spec is left behind.
    expect(requests).toEqual(['hello']);
    expect(readdirSync(jobDirectory).filter((name) => name.endsWith('.launch.json'))).toEqual([]);
    expect(existsSync(join(jobDirectory, 'attempt-1.launch.json'))).toBe(false);
  });
});
