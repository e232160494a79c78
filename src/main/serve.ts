/**
 * Composition root of `gpushare serve`: opens the store, discovers GPUs (real nvidia-smi, else
 * simulated), builds the control plane and the HTTP server, listens, writes the admin token and
 * the user's CLI config, and shuts down cleanly on SIGTERM/SIGINT (running jobs keep running and
 * are re-adopted at the next start).
 */
import { chmodSync, existsSync } from 'node:fs';
import { lockDataDir, makeDataDir, refuseForeignDataDir } from './data-dir.js';
import { openDataDirStore } from './private-files.js';
import { removeBackupLeftovers } from '../adapters/store/sqlite-store.js';
import { join } from 'node:path';
import pino from 'pino';
import { SeededRng } from '../core/index.js';
import { AdminService } from '../app/services/admin-service.js';
import { ApiLimits } from '../app/auth/api-limits.js';
import { ControlPlane } from '../app/scheduling/control-plane.js';
import { JobService } from '../app/services/job-service.js';
import { PlaneEvents } from '../app/scheduling/plane-events.js';
import { observeStore } from '../app/scheduling/observed-store.js';
import { UsageHistory, usageSample } from '../app/services/usage-history.js';
import { toGpuViews } from '../app/services/views.js';
import type { GpuInventory } from '../app/ports/gpu-inventory.js';
import { createGpuHealthPoller } from '../adapters/gpu/gpu-health-poller.js';
import { createNvidiaSmiUsageSampler } from '../adapters/gpu/nvidia-smi-usage.js';
import { createServerMetrics } from '../adapters/metrics/server-metrics.js';
import { registerAuditAnchorMetrics } from '../adapters/metrics/audit-anchor-metrics.js';
import { createSimulatedUsageSampler } from '../app/usage/simulated-usage.js';
import { usageInputOf } from '../app/usage/usage-input.js';
import { UsagePoller } from '../app/usage/usage-poller.js';
import { createNvidiaSmiInventory, detectNvidiaSmi } from '../adapters/gpu/nvidia-smi-inventory.js';
import { createSimulatedInventory, parseSimulatedGpuSpec } from '../adapters/gpu/simulated-gpus.js';
import { createNvidiaSmiMigManager } from '../adapters/gpu/nvidia-smi-mig-manager.js';
import { createSimulatedMigManager } from '../adapters/gpu/simulated-mig-manager.js';
import { createSimulatedNvidiaSmiState, writeSimulatedNvidiaSmiState } from '../adapters/gpu/simulated-nvidia-smi.js';
import type { MigManager } from '../app/ports/mig-manager.js';
import { buildServer } from '../adapters/http/build-server.js';
import { createDiskSpaceWatch } from '../adapters/disk/disk-space-watch.js';
import { DiskRefusalBacklog, flushDiskRefusals } from '../app/audit/disk-refusals.js';
import { createJobFiles } from '../adapters/process/job-files.js';
import { createSystemClock } from '../adapters/clock/system-clock.js';
import { serverStatus } from '../app/services/server-status.js';
import { dashboardSnapshot } from '../app/services/dashboard-snapshot.js';
import { dashboardJobs } from '../app/services/dashboard-jobs.js';
import { QosService } from '../app/qos/qos-service.js';
import { createChildProcessLauncher } from '../adapters/process/child-process-launcher.js';
import { jobCgroupParent } from '../adapters/process/cgroup-layout.js';
import { detectCheckpointSupport } from '../adapters/process/transparent-checkpoint.js';
import { createMpsDaemonManager } from '../adapters/mps/mps-daemon-manager.js';
import { writeCliConfig } from '../config/cli-config-write.js';
import { setUpJobIsolation } from './job-sandbox-setup.js';
import { DEFAULT_SIMULATED_GPUS, type ServerConfig } from '../config/server-config.js';
import { prepareServerTls } from './server-tls.js';
import { auditAnchorHealth, openServerAuditLog, recordServerAdminToken } from './server-audit.js';
import { readAdminTokenFile, writeAdminTokenFile } from './admin-token-file.js';
import type { TokenRecord } from '../app/ports/state-store.js';
import { withLaunchCrashPoints, withMigCrashPoints } from '../app/crash/crash-point-ports.js';
import { crashPointsFromEnv } from './crash-at.js';

/** A running server. */
export interface RunningServer {
  /** `https://host:port` (`http://` with --insecure-http). */
  readonly url: string;
  readonly adminTokenPath: string;
  readonly cliConfigPath: string | null;
  /** The CA certificate clients trust (PEM file); null with --insecure-http or an own certificate without --tls-ca. */
  readonly caCertPath: string | null;
  readonly gpuSource: 'nvidia-smi' | 'simulated';
  /** Resolves when the server has stopped (SIGTERM, SIGINT or a finished drain). */
  readonly closed: Promise<void>;
  /** Stops the server (jobs keep running). */
  close(): Promise<void>;
}

/** Options beyond the config. */
export interface StartServerOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
  /** Write the URL, admin token and CA certificate to the user's CLI config. Default true. */
  readonly writeCliConfig?: boolean;
  /** Install SIGTERM/SIGINT handlers. Default true. */
  readonly handleSignals?: boolean;
  /** Log level for pino (stderr). Default `info`. */
  readonly logLevel?: string;
  /** `--accept-audit-problems`: start on an audit log that fails the start check (recorded). Default false. */
  readonly acceptAuditProblems?: boolean;
}

/** Starts a server; resolves once it listens. @throws Error for a bad GPU spec, an unusable data dir or port */
export async function startServer(config: ServerConfig, options: StartServerOptions): Promise<RunningServer> {
  const logger = pino({ level: options.logLevel ?? 'info' }, pino.destination(2));
  refuseForeignDataDir(config.dataDir);
  makeDataDir(join(config.dataDir, 'jobs'));
  const lock = lockDataDir(config.dataDir);
  process.once('exit', () => lock.release());
  const cleanups: (() => Promise<void> | void)[] = [() => lock.release()];
  const leftovers = removeBackupLeftovers(config.dataDir);
  if (leftovers.length > 0) logger.warn({ removed: leftovers }, 'removed the staging copies of interrupted backups');
  try {
    return await startLocked(config, options, logger, cleanups);
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
    throw error;
  }
}

async function startLocked(
  config: ServerConfig,
  options: StartServerOptions,
  logger: pino.Logger,
  cleanups: (() => Promise<void> | void)[],
): Promise<RunningServer> {
  const clock = createSystemClock();
  // A test hook (docs/crash-testing.md): unset, no crash point is wired.
  const crashPoints = crashPointsFromEnv(options.env);
  const tls = await prepareServerTls(config, logger, clock.nowMs());
  const events = new PlaneEvents();
  // A write that fails because the disk is full makes the server unhealthy until a recheck finds room (docs/server.md).
  const disk = createDiskSpaceWatch({
    dataDir: config.dataDir,
    logger,
    minFreeDiskBytes: config.minFreeDiskMiB * 1048576,
  });
  cleanups.push(() => disk.close());
  const rawStore = openDataDirStore(
    config.dataDir,
    logger,
    clock.nowMs(),
    (error) => disk.noteError(error),
    crashPoints ?? undefined,
  );
  cleanups.push(() => rawStore.close());
  const store = observeStore(rawStore, events);
  // Before the control plane starts, so that its first GPU actions are recorded.
  // Calls refused for want of space are counted and summarized in one audit entry once there is room.
  const diskRefusals = new DiskRefusalBacklog();
  const noteDiskError = (error: unknown): boolean => disk.noteError(error);
  const audit = openServerAuditLog(config.dataDir, rawStore, events, clock, logger, {
    acceptProblems: options.acceptAuditProblems === true,
    anchorCommand: config.auditAnchorCommand,
    disk: { backlog: diskRefusals, noteError: noteDiskError },
    ...(crashPoints === null ? {} : { crashPoints }),
  });
  cleanups.push(() => audit.close());
  disk.onHealthy(() => flushDiskRefusals(audit.services.log, diskRefusals, clock.nowMs(), noteDiskError));
  const inventory = await chooseInventory(config);
  const initialGpus = await inventory.list();
  const cgroupParent = jobCgroupParent(config.dataDir);
  const isolation = setUpJobIsolation(
    config,
    options.env,
    initialGpus,
    rawStore.listTenants().map((t) => t.name),
    logger,
  );
  const childLauncher = createChildProcessLauncher({
    freezer: config.freezer,
    logger,
    cgroupParent,
    supervisorDirectory: join(config.dataDir, 'supervisor'),
    sandbox: isolation.sandbox,
    unsandboxedDetail: isolation.unsandboxedDetail,
    logCapBytes: config.jobLogCapBytes,
  });
  // A start that fails from here on removes the cgroup folder the launcher made.
  cleanups.push(() => childLauncher.close());
  const launcher =
    crashPoints === null ? childLauncher : withLaunchCrashPoints(childLauncher, crashPoints, config.preemptionSignal);
  const files = createJobFiles(config.dataDir, isolation.jobFolderMode);
  const mpsManager = createMpsDaemonManager({ baseDirectory: join(config.dataDir, 'mps') });
  // MPS daemons keep their pipe folders in the data directory (0700), which a sandboxed tenant's
  // daemon cannot reach, and would read files a tenant's job may write: with the sandbox, MPS
  // shares are scheduler accounting only, and say so (docs/security.md).
  const mpsFound = await mpsManager.available();
  const mps = mpsFound && isolation.sandbox === null ? mpsManager : null;
  logger.info(
    { mps: mps !== null },
    mps
      ? 'MPS: nvidia-cuda-mps-control found; daemons start on demand'
      : mpsFound
        ? 'MPS: daemons are not used with the job sandbox; MPS shares are scheduler accounting only'
        : 'MPS: nvidia-cuda-mps-control not found; MPS shares are scheduler accounting only',
  );
  const migManager = chooseMigManager(config, inventory);
  const plane = new ControlPlane({
    mps,
    mig: crashPoints === null ? migManager : withMigCrashPoints(migManager, crashPoints),
    store,
    launcher,
    disk,
    gpuSource: inventory.source,
    files,
    logger,
    initialGpus,
    events,
    clock,
    rng: new SeededRng(clock.nowMs() >>> 0),
    serverEnvironment: options.env,
    settings: config,
  });
  const adminTokenPath = join(config.dataDir, 'admin-token');
  /** The id of the token the admin token file holds: rotating it through the API rewrites the file. */
  let adminTokenId = 0;
  const onRotated = (rotated: TokenRecord, secret: string): void => {
    if (rotated.id !== adminTokenId) return;
    try {
      writeAdminTokenFile(adminTokenPath, secret);
      logger.info(
        { tokenId: rotated.id, path: adminTokenPath },
        `admin token ${rotated.id} rotated: ${adminTokenPath} holds the new one`,
      );
    } catch (error) {
      logger.error(
        { err: error, tokenId: rotated.id, path: adminTokenPath },
        `admin token ${rotated.id} rotated but ${adminTokenPath} could not be rewritten; the next start ` +
          `makes a new admin token`,
      );
    }
  };
  const admin = new AdminService(
    store,
    () => clock.nowMs(),
    () => plane.roster.devices(),
    isolation.maxTenants === null ? null : { max: isolation.maxTenants, why: isolation.unsandboxedDetail },
    { onRotated },
  );
  const existing = readAdminTokenFile(adminTokenPath);
  const { token, created, id, revokedIds } = admin.ensureAdminToken(existing);
  adminTokenId = id;
  recordServerAdminToken(audit.services, {
    id,
    created,
    revokedIds,
    fileState: existing === null ? 'missing' : created ? 'unknown' : 'valid',
  });
  if (created) writeAdminTokenFile(adminTokenPath, token);
  chmodSync(adminTokenPath, 0o600);
  if (revokedIds.length > 0) {
    logger.warn(
      { tokenId: id, revokedTokenIds: revokedIds },
      `${adminTokenPath} was ${existing === null ? 'missing' : 'not an active admin token'}: made admin ` +
        `token ${id} and revoked the earlier server admin token${revokedIds.length === 1 ? '' : 's'} ` +
        `${revokedIds.join(', ')}`,
    );
  }
  const checkpoint = detectCheckpointSupport();
  logger.info({ checkpoint }, `checkpointing: ${checkpoint.detail}`);
  // Before plane.start(), so that the pass histogram sees every pass `GET /api/v1/status` counts.
  const metrics = createServerMetrics(plane, {
    store,
    nodeName: config.nodeName,
    version: options.version,
    disk: { problem: () => disk.problem(), refusals: diskRefusals },
  });
  cleanups.push(() => metrics.close());
  const anchorStatus = audit.anchorStatus;
  if (anchorStatus !== null) registerAuditAnchorMetrics(metrics.registry, anchorStatus);
  // Jobs get GPUSHARE_URL (docs/qos.md): launches wait until the server listens.
  plane.awaitServerUrl();
  await plane.start();
  const usagePoller = new UsagePoller({
    sampler:
      inventory.source === 'nvidia-smi'
        ? createNvidiaSmiUsageSampler()
        : createSimulatedUsageSampler(() => clock.nowMs()),
    input: () => usageInputOf(plane, store),
    sink: plane.usage,
    onSample: (input, sample) => plane.peaks.observe(input, sample),
    intervalMs: config.usagePollIntervalMs,
    clock,
    logger,
  });
  usagePoller.start();
  cleanups.push(() => usagePoller.stop());
  cleanups.push(() => plane.stop());
  const poller = createGpuHealthPoller({
    inventory,
    intervalMs: config.healthPollIntervalMs,
    onChange: (list) => plane.updateGpus(list),
  });
  const usageHistory = new UsageHistory(config.usageHistoryIntervalMs);
  const stopUsageSampling = usageHistory.startSampling(clock, () =>
    usageSample(
      toGpuViews(plane, (id) => store.getJob(id)),
      clock.nowMs(),
    ),
  );
  cleanups.push(stopUsageSampling);

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      stopUsageSampling();
      disk.close();
      await poller.stop();
      await usagePoller.stop();
      metrics.close();
      await plane.stop();
      launcher.close();
      audit.close();
      store.close();
      cleanups[0]!();
      logger.info('gpushare stopped; running jobs keep running and are re-adopted at the next start');
      resolveClosed();
    })();
    return closing;
  };
  cleanups.push(() => poller.stop());
  const jobs = new JobService({
    plane,
    store,
    clock,
    files,
    launcher,
    settings: { hostCpuMilli: config.hostCpuMilli, hostMemoryMiB: config.hostMemoryMiB },
    serverEnvironment: options.env,
  });
  const statusSources = {
    version: options.version,
    plane,
    jobs,
    gpuSource: inventory.source,
    freezer: launcher.freezerKind,
    enforcement: launcher.enforcement,
    isolation: launcher.isolation,
    checkpoint,
  };
  const dashboardSources = {
    plane,
    jobs,
    admin,
    usageHistory,
    version: options.version,
    store,
    clock,
    gpuSource: inventory.source,
  };
  const limits = new ApiLimits(
    config.apiLimits,
    (name) => store.getTenant(name),
    () => clock.nowMs(),
  );
  if (config.metricsOpen)
    logger.warn("GET /metrics is served without a token (metricsOpen): its series name every tenant's jobs");
  const app = await buildServer(
    {
      plane,
      jobs,
      admin,
      version: options.version,
      usageHistory,
      metrics,
      metricsOpen: config.metricsOpen,
      limits,
      tenantUid: (tenant) => launcher.jobUser(tenant)?.uid ?? null,
      onDrained: () => void close(),
      status: (principal) => serverStatus(statusSources, principal),
      diskProblem: () => disk.problem(),
      onDiskRefusal: (reason) => diskRefusals.noteRefused(reason),
      ...(anchorStatus === null ? {} : { auditAnchor: () => auditAnchorHealth(anchorStatus()) }),
      dashboard: (principal) => dashboardSnapshot(dashboardSources, principal),
      dashboardJobs: (principal, filter) => dashboardJobs(dashboardSources, principal, filter),
      qos: new QosService(plane, store, clock, logger),
      audit: audit.services,
    },
    {
      https: tls.https,
      logger: false,
      logInternalError: (err, request) =>
        logger.error({ err, method: request.method, url: request.url }, 'request failed'),
    },
  );
  cleanups.push(() => app.close());
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is already in use'
        : code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL'
          ? 'no such address on this machine'
          : (error as Error).message;
    throw new Error(`--host ${config.host} --port ${config.port}: cannot listen: ${why}`, { cause: error });
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const scheme = tls.https === null ? 'http' : 'https';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  plane.setServerUrl(jobReachableUrl(config.host, port, scheme), tls.caCertPem);
  const cliConfigPath =
    options.writeCliConfig === false ? null : writeCliConfig({ url, token, ca: tls.caCertPem }, options.env);
  if (options.handleSignals !== false) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void close());
  }
  return { url, adminTokenPath, cliConfigPath, caCertPath: tls.caCertPath, gpuSource: inventory.source, closed, close };
}

async function chooseInventory(config: ServerConfig): Promise<GpuInventory> {
  if (config.simulateGpus === null && (await detectNvidiaSmi())) return createNvidiaSmiInventory();
  return createSimulatedInventory(parseSimulatedGpuSpec(config.simulateGpus ?? DEFAULT_SIMULATED_GPUS));
}

/**
 * The MIG manager: `nvidia-smi mig` on real GPUs; for simulated GPUs the same code driving the
 * stand-in nvidia-smi, whose MIG state lives in `<data-dir>/simulated-nvidia-smi.json` (made from
 * the GPU spec on first start, kept across restarts like a real GPU's instances).
 */
function chooseMigManager(config: ServerConfig, inventory: GpuInventory): MigManager {
  if (inventory.source === 'nvidia-smi') return createNvidiaSmiMigManager();
  const stateFile = join(config.dataDir, 'simulated-nvidia-smi.json');
  if (!existsSync(stateFile)) {
    const items = parseSimulatedGpuSpec(config.simulateGpus ?? DEFAULT_SIMULATED_GPUS);
    writeSimulatedNvidiaSmiState(
      stateFile,
      createSimulatedNvidiaSmiState(items.map((i) => ({ model: i.model, mig: i.mig, count: i.count }))),
    );
  }
  return createSimulatedMigManager(stateFile);
}

/**
 * The URL a job on this machine reaches the server at (GPUSHARE_URL): the listen address, or the
 * loopback address when the server listens on every address (`0.0.0.0`, `::`); both are names of
 * the local CA's server certificate.
 */
export function jobReachableUrl(host: string, port: number, scheme: 'http' | 'https'): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${scheme}://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
