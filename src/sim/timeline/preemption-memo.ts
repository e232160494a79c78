/**
 * Which nodes of a timeline replay can have no preemption plan for a queued job, because an equal
 * job (same priority, same request) found none and nothing that could make one has happened there
 * since (docs/simulator.md "Timeline replay", Engine). It saves the replay most of its calls to the
 * core's preemption: a full pass follows every completion and asks again for every waiting job.
 *
 * Why a node stays without a plan, given the core's rules (victims of lower priority, preemptible,
 * not started at this instant, preempted fewer times than the cap; fit is monotone: taking jobs off
 * a node never breaks a fit), after a failure at time t0 when the job fitted no node:
 * - nothing left the node (no completion, no eviction: also, preemption counts only grow then);
 * - jobs placed there since only take room: a plan that evicts one of them would, without it, be a
 *   plan of the node as it was (or the job would have fitted then);
 * - time passing makes a job eligible only when it started at t0 (excluded then: it was placed at
 *   that instant); with a minimum run time, every job may become eligible.
 */

/** A failure: when, and the count of releases at that moment. */
interface Failure {
  readonly releases: number;
  readonly seconds: number;
}

/** Failed preemption searches by (priority, request shape), and what happened on each node since. */
export class PreemptionMemo {
  private releases = 0;
  /** Per node, the release count just after the node's last release (0: never). */
  private readonly releasedAt: Float64Array;
  /** Per node, the latest start of a job there, simulated seconds. */
  private readonly lastStartSeconds: Float64Array;
  private readonly failures = new Map<number, Failure[]>();

  /**
   * @param nodeCount nodes of the cluster (indices 0 … nodeCount − 1)
   * @param timeMakesEligible true when time alone makes jobs eligible (a minimum run time > 0)
   */
  constructor(
    nodeCount: number,
    private readonly timeMakesEligible: boolean,
  ) {
    this.releasedAt = new Float64Array(nodeCount);
    this.lastStartSeconds = new Float64Array(nodeCount).fill(Number.NEGATIVE_INFINITY);
  }

  /** A job started on node `nodeIndex` at `seconds`. */
  started(nodeIndex: number, seconds: number): void {
    if (seconds > this.lastStartSeconds[nodeIndex]!) this.lastStartSeconds[nodeIndex] = seconds;
  }

  /** A job left node `nodeIndex` (completed or evicted). */
  released(nodeIndex: number): void {
    this.releasedAt[nodeIndex] = ++this.releases;
  }

  /** No node had a plan for a job of `priority` and request shape `shapeId` at `seconds`. */
  failed(priority: number, shapeId: number, seconds: number): void {
    let byShape = this.failures.get(priority);
    if (byShape === undefined) this.failures.set(priority, (byShape = []));
    byShape[shapeId] = { releases: this.releases, seconds };
  }

  /**
   * True when node `nodeIndex` can have no plan at `seconds` for a job of `priority` and shape
   * `shapeId` that fits no node now: an equal job found none, and since then nothing left the
   * node and no job there became eligible by time (see the file comment).
   */
  noPlanOn(priority: number, shapeId: number, nodeIndex: number, seconds: number): boolean {
    const failure = this.failures.get(priority)?.[shapeId];
    if (failure === undefined || this.releasedAt[nodeIndex]! > failure.releases) return false;
    if (seconds === failure.seconds) return true;
    return !this.timeMakesEligible && this.lastStartSeconds[nodeIndex]! < failure.seconds;
  }
}
