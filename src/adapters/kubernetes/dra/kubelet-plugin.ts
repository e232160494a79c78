/**
 * The driver's kubelet plugin over real gRPC on unix sockets: the DRA service (every version of
 * dra-protos.ts) on `<kubeletDir>/plugins/<driver>/dra.sock`, and the registration service on
 * `<kubeletDir>/plugins_registry/<driver>-reg.sock`, whose GetInfo names the DRA socket.
 *
 * The kubelet's plugin watcher finds registration sockets by watching plugins_registry and, when
 * it starts, by walking it: a restarted kubelet registers the plugin again from the socket that is
 * there. So the plugin keeps both sockets there and served: when a socket file is gone or replaced
 * (a kubelet or an admin cleaning the directory) it is served anew, which the watcher sees as a
 * new socket, and registration happens again. Checked through fs.watch of both directories, with a
 * poll every `pollIntervalMs` as the fallback, like the device plugin's sockets (device-plugin.ts).
 *
 * Facts: ../shared docs K8S-DRA-CONTRACTS.md §3.1 (socket names and places, GetInfo's answer).
 */
import { mkdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { unixTarget } from '../device-plugin/protos.js';
import type { ClaimPreparer } from './claim-preparer.js';
import { DRA_DRIVER } from './dra-names.js';
import { DRA_API_VERSIONS, loadDraApis } from './dra-protos.js';
import { draPluginHandlers, registrationHandlers, type DraServiceEvents } from './dra-service.js';
import { DRA_PLUGIN_TYPE, draServiceVersion, type PluginInfo } from './dra-wire-types.js';

/** The kubelet's root directory by default. */
export const DEFAULT_KUBELET_DIR = '/var/lib/kubelet';

/** Path of the registration socket: `<kubeletDir>/plugins_registry/<driver>-reg.sock`. */
export function registrationSocketPath(kubeletDir: string): string {
  return join(kubeletDir, 'plugins_registry', `${DRA_DRIVER}-reg.sock`);
}

/** Path of the DRA service socket: `<kubeletDir>/plugins/<driver>/dra.sock`. */
export function draSocketPath(kubeletDir: string): string {
  return join(kubeletDir, 'plugins', DRA_DRIVER, 'dra.sock');
}

/** Configuration of {@link startKubeletPlugin}. */
export interface KubeletPluginConfig {
  readonly kubeletDir: string;
  readonly preparer: ClaimPreparer;
  readonly events?: DraServiceEvents;
  /** Fallback poll of the sockets, ms. @defaultValue 1000 */
  readonly pollIntervalMs?: number;
  /** Told of serve failures (retried at the next check). */
  readonly onError?: (error: Error) => void;
  /** Told each time a socket is served (again). */
  readonly onServed?: (socketPath: string) => void;
}

/** A running kubelet plugin. */
export interface RunningKubeletPlugin {
  readonly registrationSocket: string;
  readonly draSocket: string;
  /** Checks both sockets now and resolves when done. */
  checkNow(): Promise<void>;
  /** Stops serving and removes the sockets it made. Idempotent. */
  stop(): Promise<void>;
}

function identityOf(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

/** One socket kept served. */
interface KeptSocket {
  readonly path: string;
  server: grpc.Server | null;
  identity: string | null;
  readonly build: () => grpc.Server;
}

async function serveSocket(socket: KeptSocket): Promise<void> {
  socket.server?.forceShutdown();
  socket.server = null;
  mkdirSync(dirname(socket.path), { recursive: true, mode: 0o750 });
  await rm(socket.path, { force: true });
  const server = socket.build();
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(unixTarget(socket.path), grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  socket.server = server;
  socket.identity = identityOf(socket.path);
}

/**
 * Serves the DRA socket first, then the registration socket (the kubelet dials the endpoint as
 * soon as it sees the registration socket), and keeps both served.
 * @throws Error when a socket cannot be served at start
 */
export async function startKubeletPlugin(config: KubeletPluginConfig): Promise<RunningKubeletPlugin> {
  const pollIntervalMs = config.pollIntervalMs ?? 1000;
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs < 10)
    throw new RangeError(`pollIntervalMs must be at least 10, got ${pollIntervalMs}`);
  const apis = loadDraApis();
  const draSocket = draSocketPath(config.kubeletDir);
  const registrationSocket = registrationSocketPath(config.kubeletDir);
  const info: PluginInfo = {
    type: DRA_PLUGIN_TYPE,
    name: DRA_DRIVER,
    endpoint: draSocket,
    supported_versions: DRA_API_VERSIONS.map(draServiceVersion),
  };
  const sockets: KeptSocket[] = [
    {
      path: draSocket,
      server: null,
      identity: null,
      build: () => {
        const server = new grpc.Server();
        for (const version of DRA_API_VERSIONS)
          server.addService(
            apis.DRAPlugin[version].service,
            draPluginHandlers(version, config.preparer, config.events),
          );
        return server;
      },
    },
    {
      path: registrationSocket,
      server: null,
      identity: null,
      build: () => {
        const server = new grpc.Server();
        server.addService(apis.Registration.service, registrationHandlers(info, config.events));
        return server;
      },
    },
  ];
  let stopped = false;
  const watchers = new Map<string, FSWatcher>();

  async function check(): Promise<void> {
    for (const socket of sockets) {
      if (stopped) return;
      const now = identityOf(socket.path);
      if (now !== null && now === socket.identity) continue;
      try {
        await serveSocket(socket);
        config.onServed?.(socket.path);
      } catch (error) {
        config.onError?.(new Error(`serving ${socket.path} failed: ${(error as Error).message}`));
      }
    }
  }

  let running: Promise<void> | null = null;
  let again = false;
  function trigger(): Promise<void> {
    if (running !== null) {
      again = true;
      return running;
    }
    running = (async () => {
      for (let i = 0; i < 10 && !stopped; i++) {
        again = false;
        await check();
        if (!again) break;
      }
    })().finally(() => (running = null));
    return running;
  }

  function ensureWatchers(): void {
    for (const socket of sockets) {
      const dir = dirname(socket.path);
      if (watchers.has(dir) || stopped) continue;
      try {
        const watcher = watch(dir, () => void trigger());
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(dir);
        });
        watchers.set(dir, watcher);
      } catch {
        // The directory is gone: the poll serves the socket again and the next tick watches it.
      }
    }
  }

  for (const socket of sockets) {
    try {
      await serveSocket(socket);
      config.onServed?.(socket.path);
    } catch (error) {
      for (const s of sockets) s.server?.forceShutdown();
      throw new Error(`cannot serve ${socket.path}: ${(error as Error).message}`);
    }
  }
  ensureWatchers();
  const timer = setInterval(() => {
    ensureWatchers();
    void trigger();
  }, pollIntervalMs);

  return {
    registrationSocket,
    draSocket,
    checkNow: () => trigger(),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
      await running;
      // The registration socket goes first: the kubelet then deregisters the plugin.
      for (const socket of [...sockets].reverse()) {
        socket.server?.forceShutdown();
        socket.server = null;
        if (socket.identity !== null && identityOf(socket.path) === socket.identity)
          await rm(socket.path, { force: true });
      }
    },
  };
}
