/**
 * A cluster of one node for tests of the core's placement rules (excluded from the build): a
 * `ClusterState` over one node's GPUs with the calls a test of a single server makes — place a job,
 * hold or release one, run a pass with given rules, change the GPU list (which rebuilds the state
 * from the assignments held, as a new snapshot would), ask a what-if through a `Statement`.
 */
import { ClusterState, gpuKey, type GpuUsage } from '../framework/cluster-state.js';
import { Statement } from '../framework/statement.js';
import type { WaitReason } from '../model/status.js';
import { waitMessage } from '../model/wait-message.js';
import { explainWait } from '../framework/explain-wait.js';
import type { Assignment, Placement } from '../model/assignment.js';
import { InvariantViolation } from '../model/errors.js';
import type { GpuDevice, MigInstance } from '../model/gpu-device.js';
import type { JobRequest } from '../model/request.js';
import type { PassRules } from '../pass/pass-rules.js';
import { runPass } from '../pass/run-pass.js';
import { findPolicy } from '../policies/registry.js';
import type { RunningJobEnd } from '../queue/backfill.js';
import type { Rng } from '../random/rng.js';

/** The node's name in every assignment. */
export const TEST_NODE = 'node-0';

/** Host capacity and placement settings of the node. */
export interface OneNodeOptions {
  readonly hostCpuMilli: number;
  readonly hostMemoryMiB: number;
  readonly timesliceOvercommitRatio: number;
  readonly rng: Rng;
}

/** An assignment as a test gives it (the node is implied). */
export type TestAssignment = Omit<Assignment, 'node'>;

/** Outcome of trying one job, with the reason as text. */
export type TestOutcome =
  { readonly kind: 'placed'; readonly placement: Placement } | { readonly kind: 'waiting'; readonly reason: string };

/** Rules of a pass as a test states them (protected GPUs by index, each with the job it is protected for). */
export interface TestPassOptions {
  readonly compare?: (a: JobRequest, b: JobRequest) => number;
  readonly admit?: (job: JobRequest) => WaitReason | null;
  readonly onPlaced?: (job: JobRequest, placement: Placement) => void;
  readonly backfill?: {
    readonly nowMs: number;
    readonly running: readonly RunningJobEnd[];
    readonly timeLimitSecondsOf: (job: JobRequest) => number | null;
  };
  readonly protectedGpus?: (job: JobRequest) => ReadonlyMap<number, number> | null;
}

/** The outcome of a test pass. */
export interface TestPassResult {
  readonly placed: { jobId: number; placement: Placement }[];
  readonly waiting: Map<number, string>;
  readonly blockedJobId: number | null;
  readonly protectedWaiting: ReadonlySet<number>;
}

/** One node's placement state. */
export class OneNodeCluster {
  private state: ClusterState;
  private given: GpuDevice[];
  private readonly held = new Map<number, Assignment>();
  /** Tenant of each held job (`team` unless given). */
  private readonly tenants = new Map<number, string>();
  private readonly idle = new Map<number, readonly MigInstance[]>();

  constructor(
    gpus: readonly GpuDevice[],
    private readonly options: OneNodeOptions,
  ) {
    this.given = [...gpus];
    this.state = this.build();
  }

  /** Replaces the GPU list; every held assignment is kept (a GPU that holds jobs stays, see cluster-state.ts). */
  setGpus(gpus: readonly GpuDevice[]): void {
    const next = [...gpus];
    const previous = this.given;
    this.given = next;
    try {
      this.state = this.build();
    } catch (error) {
      this.given = previous;
      throw error;
    }
  }

  /** The GPUs as scheduled (a GPU that changed MIG mode while in use keeps its old mode, unschedulable). */
  gpus(): GpuDevice[] {
    return [...this.state.nodes[0]!.devices.values()]
      .map(({ device: { migInstances: _instances, ...device } }) => device)
      .sort((a, b) => a.index - b.index);
  }

  /** Holds an existing assignment of a job of `tenant`. */
  hold(assignment: TestAssignment, tenant = 'team'): void {
    const full = { ...assignment, node: TEST_NODE };
    this.state.hold(full, tenant);
    this.held.set(full.jobId, full);
    this.tenants.set(full.jobId, tenant);
  }

  /** Frees what a job holds. */
  release(jobId: number): void {
    this.state.release(jobId);
    this.held.delete(jobId);
    this.tenants.delete(jobId);
    // A GPU kept only for its jobs (vanished, or its MIG mode changed) takes its given state once they are gone.
    const given = new Map(this.given.map((g) => [g.index, g]));
    const stale = [...this.state.nodes[0]!.devices.values()].some(
      (d) =>
        (d.jobs.size === 0 &&
          (given.get(d.device.index)?.migEnabled ?? !d.device.migEnabled) !== d.device.migEnabled) ||
        (d.jobs.size === 0 && !given.has(d.device.index)),
    );
    if (stale) this.state = this.build();
  }

  isHeld(jobId: number): boolean {
    return this.state.isHeld(jobId);
  }

  /** Places `job` now (held on success). */
  tryPlace(job: JobRequest): TestOutcome {
    const outcome = this.state.tryPlace(job);
    if (outcome.kind === 'waiting')
      return { kind: 'waiting', reason: waitMessage(explainWait(this.state, job, outcome.reason)) };
    this.held.set(job.id, {
      jobId: job.id,
      node: TEST_NODE,
      cpuMilli: job.cpuMilli,
      hostMemoryMiB: job.hostMemoryMiB,
      placement: outcome.placement,
    });
    this.tenants.set(job.id, job.tenant);
    return { kind: 'placed', placement: outcome.placement };
  }

  /** One pass over `pending` with the given rules (none: everything that fits, in priority order). */
  runPass(pending: readonly JobRequest[], options: TestPassOptions = {}): TestPassResult {
    const jobs = options.backfill
      ? pending.map((j) => ({ ...j, timeLimitSeconds: options.backfill!.timeLimitSecondsOf(j) }))
      : pending;
    const rules: PassRules = {
      compare:
        options.compare ?? ((a, b) => b.priority - a.priority || a.submittedAtMs - b.submittedAtMs || a.id - b.id),
      orderContext: { nowMs: 0, dominantShareByTenant: new Map(), aging: { agingIntervalMs: 1, agingStep: 0 } },
      admit: (job) => options.admit?.(job) ?? null,
      admission: (job) => options.admit?.(job) ?? null,
      onPlaced: (job, _node, placement) => options.onPlaced?.(job, placement),
      protectedGpus: (job) => {
        const guarded = options.protectedGpus?.(job) ?? null;
        return guarded === null || guarded.size === 0 ? null : new Map([[TEST_NODE, guarded]]);
      },
      backfill: { nowMs: options.backfill?.nowMs ?? 0, running: options.backfill?.running ?? [] },
      quotas: new Map(),
      usage: new Map(),
      quotaRefused: new Set(),
      sizeOf: () => 0,
      gpuKinds: [],
    };
    const statement = new Statement(this.state);
    const outcome = runPass(statement, jobs, { rules, backfill: options.backfill !== undefined });
    statement.commit();
    const placed = statement.placements().map(({ jobId, placement }) => ({ jobId, placement }));
    for (const { jobId, node, placement } of statement.placements()) {
      const job = jobs.find((j) => j.id === jobId)!;
      this.held.set(jobId, { jobId, node, cpuMilli: job.cpuMilli, hostMemoryMiB: job.hostMemoryMiB, placement });
      this.tenants.set(jobId, job.tenant);
    }
    return {
      placed,
      waiting: new Map(
        outcome.waiting.map(({ jobId: id, reason: r }) => [
          id,
          waitMessage(
            explainWait(
              this.state,
              jobs.find((j) => j.id === id)!,
              r,
            ),
          ),
        ]),
      ),
      blockedJobId: outcome.blockedJobId,
      protectedWaiting: outcome.protectedWaiting,
    };
  }

  /** True when `job` would fit if the jobs `victimIds` held nothing; changes nothing. */
  fitsWithout(job: JobRequest, victimIds: readonly number[]): boolean {
    if (this.state.isHeld(job.id))
      throw new InvariantViolation(`job ${job.id} holds resources; a what-if places a job that holds none`);
    const statement = new Statement(this.state);
    const fits = statement.fitsWithout(
      job,
      victimIds.filter((id) => this.state.isHeld(id)),
    );
    statement.commit();
    return fits;
  }

  /** Tells the node which GPU instances exist on MIG GPU `index` (idle ones may be reused). */
  adoptMigInstances(index: number, instances: readonly MigInstance[]): void {
    this.idle.set(index, instances);
    const previous = this.state;
    // Adopting replaces the idle GIs known (held ones stay).
    this.state = undefined as unknown as ClusterState;
    try {
      this.state = this.build();
    } catch (error) {
      this.state = previous;
      throw error;
    }
  }

  idleMigInstances(index: number): MigInstance[] {
    return this.state.idleMigInstances(TEST_NODE, index);
  }

  /** GPU indices `job` could ever run on. */
  gpusUsableBy(job: JobRequest): Set<number> {
    return new Set([...this.state.gpusUsableBy(job)].map((key) => key - gpuKey(0, 0)));
  }

  usage(): GpuUsage[] {
    return this.state.usage(TEST_NODE);
  }

  private build(): ClusterState {
    // GIs left idle by released jobs stay on their GPUs (as on a real GPU), besides those adopted.
    const idleOf = (index: number): readonly MigInstance[] => {
      const kept = this.state?.nodes[0]!.devices.has(index) ? this.state.idleMigInstances(TEST_NODE, index) : [];
      const adopted = this.idle.get(index) ?? [];
      return [
        ...adopted,
        ...kept.filter((k) => !adopted.some((a) => a.start === k.start && a.profileId === k.profileId)),
      ];
    };
    const gpus = this.given.map((g) => {
      const idle = g.migEnabled ? idleOf(g.index) : [];
      return idle.length > 0 ? { ...g, migInstances: idle } : g;
    });
    // A GPU that vanished while it holds jobs stays known, unschedulable, until they are released.
    const listed = new Set(gpus.map((g) => g.index));
    for (const device of this.state?.nodes[0]!.devices.values() ?? []) {
      if (!listed.has(device.device.index) && device.jobs.size > 0) gpus.push({ ...device.device, schedulable: false });
    }
    const active = [...this.held.values()].map((assignment) => ({
      request: {
        id: assignment.jobId,
        tenant: this.tenants.get(assignment.jobId) ?? 'team',
        priority: 0,
        submittedAtMs: 0,
        cpuMilli: assignment.cpuMilli,
        hostMemoryMiB: assignment.hostMemoryMiB,
        gpu: {
          gpuCount: assignment.placement.gpus.length,
          gpuMilli: assignment.placement.gpus[0]?.gpuMilli ?? 0,
          gpuMemoryMiB: null,
          mode: assignment.placement.mode,
        },
      },
      assignment,
      preemptible: false,
      startedAtMs: 0,
      preemptionCount: 0,
      stopping: false,
    }));
    return new ClusterState(
      {
        nodes: [
          { name: TEST_NODE, hostCpuMilli: this.options.hostCpuMilli, hostMemoryMiB: this.options.hostMemoryMiB, gpus },
        ],
        active,
      },
      {
        profile: (unitCount) => findPolicy('default')!.create({ nodeCount: unitCount }),
        rng: this.options.rng,
        timesliceOvercommitRatio: this.options.timesliceOvercommitRatio,
      },
    );
  }
}
