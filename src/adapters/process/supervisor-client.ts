/**
 * The launcher's side of the channel to the supervisor of its data directory
 * (supervisor-protocol.ts): connects, starting the supervisor when none answers, and sends
 * requests. One connection, kept open (it tells the supervisor a server is there) and re-made
 * after the supervisor went away; it does not keep the server's process alive by itself.
 */
import { spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { isSameProcess } from '../../host/proc-identity.js';
import {
  ensurePrivateDirectory,
  openSocketAddress,
  readMessages,
  sendMessage,
  type SocketAddress,
  type SupervisorAnswer,
  type SupervisorRequest,
} from './supervisor-protocol.js';

/**
 * Node flags of the supervisor: a 1 MiB young generation (the default grows to 16 MiB per
 * semi-space under a stream of log output) and no V8 worker threads. Measured in
 * docs/decisions/0018-one-supervisor-per-server.md.
 */
export const SUPERVISOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=0'];

/** The supervisor answering on the channel: its pid and start time (field 22 of /proc/<pid>/stat). */
export interface SupervisorIdentity {
  pid: number;
  startTime: string;
  /** The protocol version its hello answered (supervisor-protocol.ts); 0 until it answered. */
  version: number;
}

/** Options of {@link SupervisorClient}. */
export interface SupervisorClientOptions {
  /** The supervisor directory (made 0700 when missing). */
  directory: string;
  /** The supervisor script (supervisor.js). */
  supervisorPath: string;
  /** Idle time after which a supervisor with nothing to do and no launcher exits, ms. */
  idleExitMs: number;
  /** Longest wait for a started supervisor to answer, ms. */
  connectTimeoutMs: number;
}

/** An open connection and its pending requests. */
interface Connection {
  socket: Socket;
  identity: SupervisorIdentity;
  pending: Map<number, (answer: SupervisorAnswer | null) => void>;
}

/** Without an id: the client numbers requests. */
type Request = SupervisorRequest extends infer R ? (R extends SupervisorRequest ? Omit<R, 'id'> : never) : never;

/** Connects to (and starts) the supervisor; sends requests. */
export class SupervisorClient {
  private connection: Promise<Connection> | null = null;
  /** The connection once open, until it closes. */
  private live: Connection | null = null;
  private address: SocketAddress | null = null;
  private nextId = 1;

  constructor(private readonly options: SupervisorClientOptions) {}

  /**
   * The supervisor that answers now, connecting (and starting one) when needed.
   * @throws Error when no supervisor answers within `connectTimeoutMs` after a start
   */
  async identity(): Promise<SupervisorIdentity> {
    return (await this.connect()).identity;
  }

  /**
   * Sends `request` and waits up to `timeoutMs` for its answer; null on timeout or when the
   * connection closed first (the supervisor went away).
   */
  async request(request: Request, timeoutMs: number): Promise<SupervisorAnswer | null> {
    const connection = await this.connect();
    return this.send(connection, request, timeoutMs);
  }

  /** Closes the connection (the supervisor and its attempts go on). */
  close(): void {
    void this.connection?.then(
      (c) => c.socket.destroy(),
      () => undefined,
    );
    this.connection = null;
    this.live = null;
    this.address?.close();
    this.address = null;
  }

  private connect(): Promise<Connection> {
    if (this.live !== null && !isSameProcess(this.live.identity.pid, this.live.identity.startTime)) {
      // Died, and its connection's end is not seen yet: connect anew (starting a new supervisor).
      this.live.socket.destroy();
      this.live = null;
      this.connection = null;
    }
    this.connection ??= this.openWithRetries().catch((error: unknown) => {
      this.connection = null;
      throw error;
    });
    return this.connection;
  }

  private send(connection: Connection, request: Request, timeoutMs: number): Promise<SupervisorAnswer | null> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), timeoutMs);
      const done = (answer: SupervisorAnswer | null): void => {
        clearTimeout(timer);
        connection.pending.delete(id);
        if (connection.pending.size === 0) connection.socket.unref();
        resolve(answer);
      };
      connection.pending.set(id, done);
      connection.socket.ref(); // an answer is awaited: keep the process alive for it
      sendMessage(connection.socket, { id, ...request } as SupervisorRequest);
    });
  }

  /**
   * {@link open}, tried up to 3 times: a supervisor can go away between the connect and its hello
   * (killed, or one that found another answering and exited), and the next try starts or finds the
   * one that stays.
   */
  private async openWithRetries(): Promise<Connection> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.open();
      } catch (error) {
        if (attempt >= 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  /** Connects, starting the supervisor when none answers, and says hello. */
  private async open(): Promise<Connection> {
    if (this.address === null) {
      ensurePrivateDirectory(this.options.directory);
      this.address = openSocketAddress(this.options.directory);
    }
    const path = this.address.path;
    let socket = await tryConnect(path);
    if (socket === null) {
      this.startSupervisor();
      const deadlineMs = Date.now() + this.options.connectTimeoutMs;
      while (socket === null && Date.now() < deadlineMs) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        socket = await tryConnect(path);
      }
      if (socket === null)
        throw new Error(`no supervisor answers in ${this.options.directory} (started ${this.options.supervisorPath})`);
    }
    const connection: Connection = { socket, identity: { pid: 0, startTime: '', version: 0 }, pending: new Map() };
    socket.unref();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.live === connection) {
        this.live = null;
        this.connection = null;
      }
      for (const done of [...connection.pending.values()]) done(null);
    });
    readMessages(socket, (message) => {
      const answer = message as SupervisorAnswer;
      connection.pending.get(answer.id)?.(answer);
    });
    const hello = await this.send(connection, { op: 'hello' }, this.options.connectTimeoutMs);
    if (hello === null || !hello.ok || hello.op !== 'hello') {
      socket.destroy();
      throw new Error(
        `the supervisor in ${this.options.directory} did not answer hello` +
          `${hello !== null && !hello.ok ? `: ${hello.error}` : ''}`,
      );
    }
    connection.identity = { pid: hello.pid, startTime: hello.startTime, version: hello.version };
    if (socket.destroyed) throw new Error(`the supervisor in ${this.options.directory} closed the connection`);
    this.live = connection;
    return connection;
  }

  /** Starts a supervisor, detached (its own session: it outlives the server). */
  private startSupervisor(): void {
    const args = [
      ...SUPERVISOR_NODE_FLAGS,
      this.options.supervisorPath,
      '--serve',
      this.options.directory,
      '--idle-exit-ms',
      String(this.options.idleExitMs),
    ];
    const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined); // no answer follows: open() says so
    child.unref();
  }
}

/** A connected socket to `path`, or null when nothing listens there. */
function tryConnect(path: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(null);
    });
  });
}
