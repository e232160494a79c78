/**
 * The autoscaler in the pool replay (docs/simulator.md "Pool replay"): the core's `autoscale()`
 * called as simulated time goes, and its decisions carried out on the replay's PoolCluster, as a
 * provider would: nodes asked for boot for their template's `bootSeconds` and then join the
 * cluster; cordoned nodes take nothing new; drained jobs are checkpointed and re-queued (by the
 * engine, as preempted ones); removed nodes leave. Every node is paid from its request to its
 * removal (pool-ledger.ts).
 *
 * When it is called: on a grid of `intervalSeconds` of simulated time (the control loop's period).
 * A call that decided nothing is not repeated while nothing changes — no job started, ended or was
 * queued, no node came up — until the next time a threshold of the policy can pass (a waiting job
 * reaches the wait-time target, an idle node the scale-down delay, the scale-up cool-down ends):
 * its inputs would be the same and so would its decision. It sees at most `maxPendingJobs` queued
 * jobs, the first in queue order.
 */
import {
  autoscale,
  INITIAL_AUTOSCALE_STATE,
  type AutoscaleDecision,
  type AutoscalePolicy,
  type AutoscaleState,
  type NodeTemplate,
  type PoolNode,
  type ScheduleOptions,
} from '../../core/index.js';
import type { JobRun } from '../timeline/job-run.js';
import type { ReplayPool } from '../timeline/timeline-engine.js';
import type { PoolCluster } from './pool-cluster.js';
import type { GpuUseNow } from './pool-gpu-use.js';
import { PoolLedger, StepSeries } from './pool-ledger.js';

/** How the autoscaler runs in the replay. */
export interface AutoscaleSettings {
  readonly templates: readonly NodeTemplate[];
  readonly policy: AutoscalePolicy;
  /** Simulated seconds between the control loop's turns (> 0). */
  readonly intervalSeconds: number;
  /** Queued jobs the autoscaler sees at most (the first in queue order), ≥ 1. */
  readonly maxPendingJobs: number;
  /** How the autoscaler's trial passes place (the same as the cluster's). */
  readonly scheduling: ScheduleOptions;
  /** Seed of the trial passes' tie-breaks. */
  readonly seed: number;
  /**
   * Which running jobs a drain may move: `all` (every job of the replay checkpoints, so any can be
   * moved off an underused node), or `preemptible` (only those below `high`, as preemption).
   */
  readonly drainable: 'all' | 'preemptible';
}

/** A node of the pool, from the request on. */
interface Node {
  readonly id: number;
  readonly name: string;
  readonly template: NodeTemplate;
  readonly requestedAtSeconds: number;
  readonly readyAtSeconds: number;
  phase: 'booting' | 'ready' | 'cordoned';
}

/** Calls of `autoscale()` and their cost. */
export interface AutoscaleCalls {
  readonly calls: number;
  /** Wall time of the calls, seconds. */
  readonly wallSeconds: number;
  /** The slowest call, seconds. */
  readonly maxWallSeconds: number;
  /** Nodes added, cordoned, and jobs drained. */
  readonly nodesAdded: number;
  readonly nodesRemoved: number;
  readonly jobsDrained: number;
}

/** Where the GPU-hours a pool paid went, hours: the GpuUseNow parts over time, and booting nodes' GPUs. */
export type GpuHoursUse = { readonly [K in keyof GpuUseNow | 'booting']: number };

const USE_PARTS = ['held', 'slivers', 'idleOnBusyNodes', 'emptyNodes', 'cordoned'] as const;

function isEmpty(d: AutoscaleDecision): boolean {
  return d.scaleUp.length === 0 && d.cordon.length === 0 && d.remove.length === 0 && d.drainJobIds.length === 0;
}

/** Drives an autoscaled PoolCluster from the timeline engine (a ReplayPool). */
export class AutoscaleDriver implements ReplayPool {
  readonly ledger = new PoolLedger();
  /** Jobs queued over time. */
  readonly queueLength = new StepSeries();
  /** Reserved milli-GPU of the running jobs over time. */
  readonly reservedMilli = new StepSeries();
  /** GPUs in each part of GpuUseNow, and booting, over time. */
  private readonly use = {
    ...(Object.fromEntries(USE_PARTS.map((k) => [k, new StepSeries()])) as Record<keyof GpuUseNow, StepSeries>),
    booting: new StepSeries(),
  };
  private useSeen = { version: -1, booting: -1 };
  private readonly nodes = new Map<number, Node>();
  private readonly byName = new Map<string, Node>();
  private booting: Node[] = [];
  private state: AutoscaleState = INITIAL_AUTOSCALE_STATE;
  private nextId = 0;
  private nextCall = 0;
  /** What the last call saw: the cluster's version and the queue (length, Σ ids). */
  private seen = { version: -1, queue: -1, ids: -1 };
  private readonly stats = {
    calls: 0,
    wallSeconds: 0,
    maxWallSeconds: 0,
    nodesAdded: 0,
    nodesRemoved: 0,
    jobsDrained: 0,
  };
  /** The templates by name. */
  private readonly templateByName: ReadonlyMap<string, NodeTemplate>;

  /** @throws RangeError for an interval not > 0 or `maxPendingJobs` < 1 */
  constructor(
    private readonly cluster: PoolCluster,
    private readonly settings: AutoscaleSettings,
  ) {
    if (!(settings.intervalSeconds > 0))
      throw new RangeError(`intervalSeconds must be > 0, got ${settings.intervalSeconds}`);
    if (!(settings.maxPendingJobs >= 1))
      throw new RangeError(`maxPendingJobs must be ≥ 1, got ${settings.maxPendingJobs}`);
    this.templateByName = new Map(settings.templates.map((t) => [t.name, t]));
  }

  /** The calls made so far. */
  get calls(): AutoscaleCalls {
    return { ...this.stats };
  }

  nextEventSeconds(): number {
    let next = this.nextCall;
    for (const n of this.booting) next = Math.min(next, n.readyAtSeconds);
    return next;
  }

  nodesUp(nowSeconds: number): boolean {
    const up = this.booting.filter((n) => n.readyAtSeconds <= nowSeconds);
    if (up.length === 0) return false;
    this.booting = this.booting.filter((n) => n.readyAtSeconds > nowSeconds);
    for (const n of up) n.phase = 'ready';
    this.cluster.addNodes(up.map((n) => ({ id: n.id, name: n.name, template: n.template })));
    return true;
  }

  afterPass(nowSeconds: number, queue: readonly JobRun[], ordered: () => readonly JobRun[]): readonly number[] {
    let ids = 0;
    for (const run of queue) ids += run.id;
    if (
      this.nextCall > nowSeconds &&
      (this.cluster.version !== this.seen.version || queue.length !== this.seen.queue || ids !== this.seen.ids)
    )
      this.nextCall = Math.min(this.nextCall, this.gridAfter(nowSeconds));
    return nowSeconds >= this.nextCall ? this.decide(nowSeconds, ordered(), ids) : [];
  }

  instantDone(nowSeconds: number, queued: number): void {
    this.queueLength.record(nowSeconds, queued);
    this.reservedMilli.record(nowSeconds, this.cluster.reservedTotal);
    let bootingGpus = 0;
    for (const n of this.booting) bootingGpus += n.template.gpuCount;
    if (this.cluster.version === this.useSeen.version && bootingGpus === this.useSeen.booting) return;
    this.useSeen = { version: this.cluster.version, booting: bootingGpus };
    const now = this.cluster.gpuUse();
    for (const k of USE_PARTS) this.use[k].record(nowSeconds, now[k]);
    this.use.booting.record(nowSeconds, bootingGpus);
  }

  /** Where the GPU-hours paid until `endSeconds` went (they sum to the ledger's GPU-hours). */
  gpuHoursUse(endSeconds: number): GpuHoursUse {
    const hours = (series: StepSeries): number => series.integralTo(endSeconds) / 3600;
    return {
      held: hours(this.use.held),
      slivers: hours(this.use.slivers),
      idleOnBusyNodes: hours(this.use.idleOnBusyNodes),
      emptyNodes: hours(this.use.emptyNodes),
      cordoned: hours(this.use.cordoned),
      booting: hours(this.use.booting),
    };
  }

  /** One call of the autoscaler and its decision carried out. @returns the jobs to drain */
  private decide(nowSeconds: number, queue: readonly JobRun[], ids: number): readonly number[] {
    const { settings } = this;
    const nowMs = nowSeconds * 1000;
    const pool: PoolNode[] = [...this.nodes.values()].map((n) => ({
      name: n.name,
      template: n.template.name,
      phase: n.phase,
      requestedAtMs: n.requestedAtSeconds * 1000,
    }));
    const pending = queue.slice(0, settings.maxPendingJobs).map((r) => r.request);
    const started = performance.now();
    const snapshot = this.cluster.snapshot();
    const decision = autoscale({
      nowMs,
      snapshot:
        settings.drainable === 'all'
          ? { ...snapshot, active: snapshot.active.map((j) => (j.preemptible ? j : { ...j, preemptible: true })) }
          : snapshot,
      pool,
      pending,
      templates: settings.templates,
      policy: settings.policy,
      state: this.state,
      scheduling: settings.scheduling,
      seed: settings.seed,
    });
    const wall = (performance.now() - started) / 1000;
    this.stats.calls++;
    this.stats.wallSeconds += wall;
    this.stats.maxWallSeconds = Math.max(this.stats.maxWallSeconds, wall);
    this.state = decision.state;

    for (const s of decision.scaleUp) {
      const template = this.templateByName.get(s.template)!;
      for (let i = 0; i < s.count; i++) this.request(template, nowSeconds);
    }
    const removed = new Set(decision.remove.map((r) => r.node));
    const cordon = decision.cordon.filter((c) => !removed.has(c.node)).map((c) => this.byName.get(c.node)!);
    for (const n of cordon) n.phase = 'cordoned';
    this.cluster.cordon(cordon.map((n) => n.id));
    const gone: number[] = [];
    for (const name of removed) {
      const n = this.byName.get(name)!;
      if (n.phase === 'booting') this.booting = this.booting.filter((b) => b !== n);
      else gone.push(n.id);
      this.nodes.delete(n.id);
      this.byName.delete(name);
      this.ledger.removed(name, nowSeconds);
      this.stats.nodesRemoved++;
    }
    this.cluster.removeNodes(gone);
    this.stats.jobsDrained += decision.drainJobIds.length;

    this.seen = { version: this.cluster.version, queue: queue.length, ids };
    this.nextCall = isEmpty(decision)
      ? this.nextThreshold(
          nowSeconds,
          pending.map((r) => r.submittedAtMs / 1000),
        )
      : this.gridAfter(nowSeconds);
    return decision.drainJobIds;
  }

  /** Asks the provider for a node of `template` at `nowSeconds`. */
  private request(template: NodeTemplate, nowSeconds: number): void {
    const id = this.nextId++;
    const node: Node = {
      id,
      name: `${template.name}-${id}`,
      template,
      requestedAtSeconds: nowSeconds,
      readyAtSeconds: nowSeconds + template.bootSeconds,
      phase: 'booting',
    };
    this.nodes.set(id, node);
    this.byName.set(node.name, node);
    this.booting.push(node);
    this.ledger.requested({
      name: node.name,
      template: template.name,
      gpuCount: template.gpuCount,
      pricePerHour: template.pricePerHour,
      fromSeconds: nowSeconds,
    });
    this.stats.nodesAdded++;
  }

  /**
   * After a call that decided nothing: the first turn at which a threshold of the policy can pass
   * with nothing else changing (a low-use clock reaching the scale-down delay, a queued job the
   * wait-time target, the end of the cool-down); +∞ for none.
   */
  private nextThreshold(nowSeconds: number, submittedSeconds: readonly number[]): number {
    const { policy } = this.settings;
    let at = Number.POSITIVE_INFINITY;
    for (const since of Object.values(this.state.lowUseSinceMs)) {
      const t = since / 1000 + policy.scaleDownDelaySeconds;
      if (t > nowSeconds) at = Math.min(at, t);
    }
    if (submittedSeconds.length > 0) {
      for (const s of submittedSeconds) {
        const t = s + policy.scaleUpWaitSeconds;
        if (t > nowSeconds) at = Math.min(at, t);
        const overdue = policy.scaleUpMaxWaitSeconds === null ? null : s + policy.scaleUpMaxWaitSeconds;
        if (overdue !== null && overdue > nowSeconds) at = Math.min(at, overdue);
      }
      const last = this.state.lastScaleUpMs;
      if (last !== null && last / 1000 + policy.scaleUpCooldownSeconds > nowSeconds)
        at = Math.min(at, last / 1000 + policy.scaleUpCooldownSeconds);
    }
    return at === Number.POSITIVE_INFINITY ? at : this.gridCeil(at);
  }

  /** The first turn strictly after `t`. */
  private gridAfter(t: number): number {
    const i = this.settings.intervalSeconds;
    return (Math.floor(t / i) + 1) * i;
  }

  /** The first turn at or after `t`. */
  private gridCeil(t: number): number {
    const i = this.settings.intervalSeconds;
    return Math.ceil(t / i - 1e-9) * i;
  }
}
