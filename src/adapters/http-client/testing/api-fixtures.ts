/**
 * Sample API objects (as the contract's schemas describe them) for client and CLI tests.
 */
import type { GpuView, JobDetailView, JobView } from '../../../contract/api.js';
import type { QuotaUseView, StatusView, TenantView, TokenView } from '../api-client.js';

/** A running job on GPU 0 with half of it; override any field. */
export function sampleJob(overrides: Partial<JobView> = {}): JobView {
  return {
    id: 12,
    name: 'train',
    tenant: 'team-a',
    state: 'running',
    reason: null,
    reasonCode: null,
    priority: 500,
    priorityClass: 'normal',
    preemptible: true,
    command: ['python', 'train.py'],
    workingDirectory: '/home/u/proj',
    timeLimitSeconds: null,
    retries: 0,
    attempt: 1,
    cpuMilli: 0,
    hostMemoryMiB: 0,
    gpu: { gpuCount: 1, gpuMilli: 500, gpuMemoryMiB: null, mode: 'auto', isolation: 'standard' },
    placement: {
      mode: 'mps',
      enforcement: { gpuMemory: 'driver-per-process', compute: 'driver-per-process' },
      simulated: true,
      gpus: [
        {
          index: 0,
          uuid: 'GPU-sim-0',
          gpuMilli: 500,
          accountedGpuMilli: 500,
          gpuMemoryMiB: 40960,
          migProfile: null,
          migDeviceUuid: null,
        },
      ],
    },
    submittedAt: '2025-01-01T00:00:00.000Z',
    startedAt: '2025-01-01T00:00:01.000Z',
    endedAt: null,
    exitCode: null,
    signal: null,
    ...overrides,
  };
}

/** {@link sampleJob} with events, one attempt and an environment. */
export function sampleJobDetail(overrides: Partial<JobDetailView> = {}): JobDetailView {
  return {
    ...sampleJob(),
    events: [
      { at: '2025-01-01T00:00:00.000Z', from: null, to: 'pending', reason: null, reasonCode: null },
      {
        at: '2025-01-01T00:00:00.500Z',
        from: 'pending',
        to: 'scheduled',
        reason: 'placed on GPU 0 in mode exclusive',
        reasonCode: 'placed',
      },
      { at: '2025-01-01T00:00:01.000Z', from: 'scheduled', to: 'running', reason: null, reasonCode: null },
    ],
    attempts: [
      {
        attempt: 1,
        startedAt: '2025-01-01T00:00:01.000Z',
        endedAt: null,
        exitCode: null,
        signal: null,
        endReason: null,
      },
    ],
    environment: { SEED: '1' },
    usagePeak: null,
    ...overrides,
  };
}

/** A simulated 80 GiB GPU with one job on half of it; override any field. */
export function sampleGpu(overrides: Partial<GpuView> = {}): GpuView {
  return {
    index: 0,
    uuid: 'GPU-sim-0',
    name: 'NVIDIA A100-SXM4-80GB',
    model: 'A100-SXM4-80GB',
    simulated: true,
    migEnabled: false,
    healthy: true,
    healthReason: null,
    cordoned: false,
    schedulable: true,
    mode: 'mps',
    enforcement: { gpuMemory: 'not-enforced', compute: 'not-enforced' },
    gpuMemoryMiB: 81920,
    allocatedGpuMilli: 500,
    freeGpuMilli: 500,
    allocatedGpuMemoryMiB: 40960,
    freeGpuMemoryMiB: 40960,
    utilizationGpuPct: null,
    memoryUsedMiB: null,
    jobs: [
      {
        id: 12,
        name: 'train',
        tenant: 'team-a',
        state: 'running',
        gpuMilli: 500,
        gpuMemoryMiB: 40960,
        migProfile: null,
        migStart: null,
        migSlices: null,
      },
    ],
    migMemorySlices: null,
    migIdleInstances: [],
    ...overrides,
  };
}

/** An admin's view of a simulated server's status; override any field. */
export function sampleStatus(overrides: Partial<StatusView> = {}): StatusView {
  return {
    version: '0.1.0',
    draining: false,
    gpuSource: 'simulated',
    jobs: { pending: 1, running: 2 },
    freezer: 'cgroup-v2',
    enforcement: {
      host: { cpuMilli: true, hostMemoryMiB: false },
      gpu: {
        exclusive: { gpuMemory: 'exclusive', compute: 'exclusive' },
        mig: { gpuMemory: 'hardware', compute: 'hardware' },
        mps: { gpuMemory: 'not-enforced', compute: 'not-enforced' },
        timeslice: { gpuMemory: 'not-enforced', compute: 'time-slice' },
      },
    },
    isolation: { sandboxed: true, detail: "each job runs under its tenant's own uid in a bubblewrap sandbox" },
    scheduler: {
      passes: 10,
      lastPassMs: 0.5,
      p50PassMs: 0.4,
      p99PassMs: 2,
      maxPassMs: 3,
      maxPendingConsidered: 4,
      passesSkipped: 0,
      maxSkippedCheckMs: 0,
    },
    migReconfigurations: 0,
    checkpoint: {
      method: 'signal',
      transparentAvailable: false,
      detail: 'criu: not installed; cuda-checkpoint: not installed; preemption uses the signal protocol',
    },
    you: { role: 'admin', tenant: null },
    ...overrides,
  };
}

/** A tenant without a quota; override any field. */
export function sampleTenant(overrides: Partial<TenantView> = {}): TenantView {
  return {
    name: 'team-a',
    createdAt: '2025-01-01T00:00:00.000Z',
    guaranteedGpuEquivalents: 0,
    limitGpuEquivalents: null,
    unixUid: 200000,
    maxPriorityClass: 'normal',
    requestsPerSecond: null,
    requestBurst: null,
    eventStreamsPerToken: null,
    ...overrides,
  };
}

/**
 * Tenant team-a's use against a quota of 1 guaranteed, limit 2: 1.5 used (0.5 borrowed), 1 queued; override any field.
 */
export function sampleQuotaUse(overrides: Partial<QuotaUseView> = {}): QuotaUseView {
  return {
    tenant: 'team-a',
    guaranteedGpuEquivalents: 1,
    limitGpuEquivalents: 2,
    usedGpuEquivalents: 1.5,
    borrowedGpuEquivalents: 0.5,
    queuedGpuEquivalents: 1,
    runningJobs: 2,
    queuedJobs: 1,
    ...overrides,
  };
}

/** An active member token of team-b that never expires; override any field. */
export function sampleToken(overrides: Partial<TokenView> = {}): TokenView {
  return {
    id: 3,
    tenant: 'team-b',
    role: 'member',
    label: 'ci',
    createdAt: '2025-01-01T00:00:00.000Z',
    expiresAt: null,
    revokedAt: null,
    rotatedAt: null,
    state: 'active',
    self: false,
    ...overrides,
  };
}
