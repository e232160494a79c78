/**
 * The channel between the launcher (in the server) and the one supervisor of a data directory
 * (docs/processes.md#the-supervisor): a Unix socket, `supervisor.sock` in the supervisor
 * directory (mode 0700, so only the server's user and root can connect), one JSON message a line.
 *
 * The socket is reached as `/proc/self/fd/<fd of the directory>/supervisor.sock`, so the path
 * stays far below the 107-byte limit of a socket address (`sun_path`) however long the data
 * directory's path is. Node built-ins only: the supervisor imports it and runs on its own from dist/.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';

/**
 * Version of the messages below and of the launch spec (supervisor-spec.ts); `hello` answers it.
 * 2: `runAs` (the user-namespace sandbox chain, its environment as bubblewrap arguments), the
 * environment on a pipe.
 */
export const SUPERVISOR_PROTOCOL_VERSION = 2;

/** File name of the socket in the supervisor directory. */
export const SOCKET_NAME = 'supervisor.sock';

/** A request of the launcher; `id` comes back in the answer. */
export type SupervisorRequest =
  | { id: number; op: 'hello' }
  /** Start the attempt of the launch spec file `specPath` (attempt-<n>.launch.json; read and deleted). */
  | { id: number; op: 'start'; specPath: string }
  /** Forward `signal` to the process group of the attempt whose outcome file is `outcomePath`. */
  | { id: number; op: 'signal'; outcomePath: string; signal: NodeJS.Signals };

/** The answer to a request: `ok: false` carries `error` (a sentence). */
export type SupervisorAnswer =
  | { id: number; ok: false; error: string }
  /** hello: who answers (pid and start time, field 22 of /proc/<pid>/stat) and how many attempts it holds. */
  | { id: number; ok: true; op: 'hello'; pid: number; startTime: string; attempts: number; version: number }
  /**
   * start: the job's pids once the pid file is written; both null when the command did not start (its outcome says
   * why).
   */
  | { id: number; ok: true; op: 'start'; jobPid: number | null; commandPid: number | null }
  /** signal: whether it reached the command while it still ran. */
  | { id: number; ok: true; op: 'signal'; delivered: boolean };

/**
 * Makes `directory` (and its parents) with mode 0700 and checks that it belongs to this user and
 * that nobody else may enter it. Throws Error naming the directory otherwise.
 */
export function ensurePrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = statSync(directory);
  if (!stat.isDirectory()) throw new Error(`supervisor directory ${directory} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new Error(`supervisor directory ${directory} belongs to uid ${stat.uid}, not to this user (${uid})`);
  if ((stat.mode & 0o077) !== 0) chmodSync(directory, 0o700);
}

/** A socket address for the supervisor directory, short whatever its path: close it when done. */
export interface SocketAddress {
  /** `/proc/self/fd/<n>/supervisor.sock`. */
  readonly path: string;
  /** Closes the directory descriptor the path goes through. */
  close(): void;
}

/** Opens `directory` and gives the socket's short address through its descriptor. */
export function openSocketAddress(directory: string): SocketAddress {
  const fd = openSync(directory, 'r');
  let open = true;
  return {
    path: join(`/proc/self/fd/${fd}`, SOCKET_NAME),
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** Calls `onMessage` with each JSON line that arrives on `socket` (a line that is not JSON is skipped). */
export function readMessages(socket: Socket, onMessage: (message: unknown) => void): void {
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let message: unknown;
      try {
        message = JSON.parse(line) as unknown;
      } catch {
        continue;
      }
      onMessage(message);
    }
  });
}

/** Writes `message` as one JSON line (nothing when the socket is already closed). */
export function sendMessage(socket: Socket, message: SupervisorRequest | SupervisorAnswer): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}
