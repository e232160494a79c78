/**
 * The supervisor of a data directory: `node supervisor.js --serve <supervisor directory>
 * [--idle-exit-ms N]`, one process for every job attempt of one server (docs/processes.md,
 * docs/decisions/0018-one-supervisor-per-server.md).
 *
 * Started detached (its own session) by the launcher when none answers, so it outlives the
 * server. It listens on `supervisor.sock` in its directory (mode 0700: the server's user only;
 * supervisor-protocol.ts) and runs each attempt the launcher asks for (supervised-attempt.ts): the
 * same files per attempt as a per-attempt supervisor wrote, so a restarted server re-adopts the
 * attempts by their files and the supervisor's pid and start time. Two supervisors started at
 * once for one directory leave one: the start is serialised by a lock directory (`start.lock`),
 * and a supervisor that finds another one answering exits 0.
 *
 * It exits 0 when it has supervised nothing and had no launcher connected for the idle time
 * (default 30 s); never for an error of one attempt (each is caught and ends that attempt only).
 * It logs to `supervisor.log` in its directory (one JSON object a line; at 1 MiB the file moves
 * to `supervisor.log.1`). Exit code 2: bad arguments or an unusable directory.
 *
 * Node built-ins only and files that import only them: this file runs on its own from dist/.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { readProcessStartTime } from '../../host/proc-identity.js';
import { SupervisedAttempt } from './supervised-attempt.js';
import { closeInheritedDescriptors, codeOf } from './supervisor-helpers.js';
import {
  ensurePrivateDirectory,
  openSocketAddress,
  readMessages,
  sendMessage,
  SUPERVISOR_PROTOCOL_VERSION,
  type SocketAddress,
  type SupervisorAnswer,
} from './supervisor-protocol.js';
import type { SupervisorSpec } from './supervisor-spec.js';

const FORWARDABLE = new Set([
  'SIGTERM',
  'SIGINT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGHUP',
  'SIGKILL',
  'SIGQUIT',
  'SIGCONT',
  'SIGSTOP',
]);
/** The log moves aside at this size. */
const LOG_ROTATE_BYTES = 1 << 20;
/** A start lock older than this is left over by a supervisor killed while starting. */
const STALE_LOCK_MS = 10_000;

/** Appends JSON lines to `<directory>/supervisor.log`; never throws. */
function createLog(directory: string): (message: string, fields?: object) => void {
  const path = join(directory, 'supervisor.log');
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // a new log
  }
  return (message, fields = {}) => {
    const line = `${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, msg: message, ...fields })}\n`;
    try {
      if (size + line.length > LOG_ROTATE_BYTES) {
        renameSync(path, `${path}.1`);
        size = 0;
      }
      appendFileSync(path, line, { mode: 0o600 });
      size += line.length;
    } catch {
      // no room for the log: the attempts matter more
    }
  };
}

/** True when something answers on the socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs `fn` holding the start lock of `directory` (a directory made with mkdir, which only one
 * process can make); waits for it up to 10 s, and removes a lock older than that.
 */
async function withStartLock<T>(directory: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(directory, 'start.lock');
  for (let tries = 0; ; tries += 1) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      break;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST' || tries > 1000) throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmdirSync(lock);
      } catch {
        // removed meanwhile
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  try {
    return await fn();
  } finally {
    rmdirSync(lock);
  }
}

/** Listens on the socket unless another supervisor answers there; null when one does. */
async function listenUnlessRunning(
  address: SocketAddress,
  onConnection: (socket: Socket) => void,
): Promise<Server | null> {
  if (await answers(address.path)) return null;
  try {
    unlinkSync(address.path); // left by a supervisor that was killed
  } catch {
    // none
  }
  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.path, () => resolve());
  });
  return server;
}

/** The supervisor's state: its attempts and connected launchers. */
class Supervisor {
  private readonly attempts = new Map<string, SupervisedAttempt>();
  private readonly connections = new Set<Socket>();
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly startTime = readProcessStartTime(process.pid) ?? '';
  server: Server | null = null;

  constructor(
    private readonly log: (message: string, fields?: object) => void,
    private readonly idleExitMs: number,
  ) {}

  /** A launcher connected: answer its requests. */
  readonly connect = (socket: Socket): void => {
    this.connections.add(socket);
    this.checkIdle();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.connections.delete(socket);
      this.checkIdle();
    });
    readMessages(socket, (message) => {
      try {
        this.handle(socket, message as Record<string, unknown>);
      } catch (error) {
        this.log('a request failed', { error: (error as Error).message });
      }
    });
  };

  private handle(socket: Socket, request: Record<string, unknown>): void {
    const id = typeof request.id === 'number' ? request.id : 0;
    const fail = (error: string): void => sendMessage(socket, { id, ok: false, error });
    if (request.op === 'hello') {
      sendMessage(socket, {
        id,
        ok: true,
        op: 'hello',
        pid: process.pid,
        startTime: this.startTime,
        attempts: this.attempts.size,
        version: SUPERVISOR_PROTOCOL_VERSION,
      });
    } else if (request.op === 'start' && typeof request.specPath === 'string') {
      this.start(request.specPath, (answer) => sendMessage(socket, { id, ...answer } as SupervisorAnswer), fail);
    } else if (
      request.op === 'signal' &&
      typeof request.outcomePath === 'string' &&
      typeof request.signal === 'string' &&
      FORWARDABLE.has(request.signal)
    ) {
      const attempt = this.attempts.get(request.outcomePath);
      if (attempt === undefined) fail(`no attempt with outcome file ${request.outcomePath} is supervised here`);
      else
        sendMessage(socket, {
          id,
          ok: true,
          op: 'signal',
          delivered: attempt.signal(request.signal as NodeJS.Signals),
        });
    } else {
      fail(`unknown request: ${JSON.stringify(request).slice(0, 200)}`);
    }
  }

  /** Reads (and deletes) a launch spec and starts its attempt; answers once its pids are known. */
  private start(
    specPath: string,
    answer: (a: { ok: true; op: 'start'; jobPid: number | null; commandPid: number | null }) => void,
    fail: (error: string) => void,
  ): void {
    let spec: SupervisorSpec;
    try {
      spec = JSON.parse(readFileSync(specPath, 'utf8')) as SupervisorSpec;
    } catch (error) {
      fail(`cannot read the launch spec ${specPath}: ${codeOf(error)}`);
      return;
    } finally {
      try {
        unlinkSync(specPath); // it holds the job's environment
      } catch {
        // already gone
      }
    }
    if (this.attempts.has(spec.outcomePath)) {
      fail(`the attempt with outcome file ${spec.outcomePath} is already supervised`);
      return;
    }
    const attempt = new SupervisedAttempt(spec, {
      onReady: (pids) => answer({ ok: true, op: 'start', ...pids }),
      onDone: () => {
        this.attempts.delete(spec.outcomePath);
        this.log('attempt ended', { outcomePath: spec.outcomePath });
        this.checkIdle();
      },
      log: (message, fields) => this.log(message, { outcomePath: spec.outcomePath, ...fields }),
    });
    this.attempts.set(spec.outcomePath, attempt);
    this.checkIdle();
    this.log('attempt starting', { outcomePath: spec.outcomePath });
    attempt.start();
  }

  /** Arms the idle exit when nothing is supervised and no launcher is connected; disarms it otherwise. */
  checkIdle(): void {
    const idle = this.attempts.size === 0 && this.connections.size === 0;
    if (!idle && this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    } else if (idle && this.idleTimer === null) {
      this.idleTimer = setTimeout(() => {
        this.log('idle: exiting', { idleExitMs: this.idleExitMs });
        this.server?.close();
        process.exit(0);
      }, this.idleExitMs);
    }
  }
}

/** `--serve <dir> [--idle-exit-ms N]`, or null when malformed. */
function parseArguments(argv: readonly string[]): { directory: string; idleExitMs: number } | null {
  let directory: string | null = null;
  let idleExitMs = 30_000;
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (value === undefined) return null;
    if (argv[i] === '--serve') directory = value;
    else if (argv[i] === '--idle-exit-ms' && /^\d+$/.test(value)) idleExitMs = Number(value);
    else return null;
  }
  return directory === null ? null : { directory, idleExitMs };
}

async function main(): Promise<void> {
  closeInheritedDescriptors();
  const args = parseArguments(process.argv.slice(2));
  if (args === null) {
    process.stderr.write('usage: supervisor.js --serve <directory> [--idle-exit-ms N]\n');
    process.exit(2);
  }
  try {
    ensurePrivateDirectory(args.directory);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  const log = createLog(args.directory);
  // An error of one attempt never ends the others: log it and go on.
  process.on('uncaughtException', (error) => log('uncaught error', { error: error.stack ?? error.message }));
  process.on('unhandledRejection', (error) => log('unhandled rejection', { error: String(error) }));
  process.on('SIGHUP', () => log('SIGHUP ignored'));
  const supervisor = new Supervisor(log, args.idleExitMs);
  const address = openSocketAddress(args.directory);
  const server = await withStartLock(args.directory, () => listenUnlessRunning(address, supervisor.connect));
  if (server === null) {
    log('another supervisor answers: exiting');
    process.exit(0);
  }
  server.on('error', (error) => log('socket error', { error: error.message }));
  supervisor.server = server;
  log('supervisor started', { directory: args.directory, idleExitMs: args.idleExitMs });
  supervisor.checkIdle();
}

void main().catch((error: unknown) => {
  process.stderr.write(`supervisor: ${(error as Error).message}\n`);
  process.exit(2);
});
