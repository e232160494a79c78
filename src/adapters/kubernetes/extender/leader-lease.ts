/**
 * One active extender replica: a `coordination.k8s.io/v1` Lease the active replica renews. A
 * replica takes the Lease when it does not exist, when it holds it already, or when the Lease has
 * not changed for `leaseDurationSeconds` as this replica's own clock measures it (so clock skew
 * between machines cannot cut a holder's term short); it stops being active as soon as a renewal
 * fails, another holder shows up, or its last successful renewal is older than two thirds of the
 * duration (a replica cut off from the API server steps down before another can take over).
 * Renewals run every third of the duration (client-go's leader election works the same way, with
 * the same Lease fields: holderIdentity, leaseDurationSeconds, acquireTime, renewTime,
 * leaseTransitions).
 */
import { statusMessage, type KubeRest } from './kube-rest.js';

/** Where the Lease lives and who this replica is. */
export interface LeaseOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationSeconds: number;
  /** Called when this replica becomes active or stops being active. */
  readonly onChange?: (active: boolean, holder: string | null) => void;
  /** Now, ms since the epoch (tests pass a clock). */
  readonly now?: () => number;
}

interface LeaseObject {
  metadata?: { resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** MicroTime as the API server writes it (RFC 3339 with microseconds). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The Lease elector of one replica. */
export class LeaderLease {
  private activeNow = false;
  private holder: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Local time of this replica's last successful create or renewal. */
  private renewedAtMs = Number.NEGATIVE_INFINITY;
  /** The Lease as last read (holder and renewTime) and when, by the local clock, it last changed. */
  private observed: { record: string; sinceMs: number } | null = null;

  constructor(
    private readonly rest: KubeRest,
    private readonly options: LeaseOptions,
  ) {}

  /** True while this replica holds the Lease and renewed it within two thirds of its duration. */
  get active(): boolean {
    return this.activeNow && this.now() - this.renewedAtMs < (this.options.leaseDurationSeconds * 1000 * 2) / 3;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The holder last seen (this replica's identity while active). */
  get currentHolder(): string | null {
    return this.holder;
  }

  /** Tries at once, then every third of the lease duration, until `stop`. */
  start(): void {
    const loop = async (): Promise<void> => {
      if (this.stopped) return;
      await this.tryOnce().catch(() => this.set(false, this.holder));
      if (!this.stopped) this.timer = setTimeout(() => void loop(), (this.options.leaseDurationSeconds * 1000) / 3);
    };
    void loop();
  }

  /** Stops renewing (the Lease then expires for the next replica). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.set(false, this.holder);
  }

  /** One acquire-or-renew round. @returns whether this replica is active after it */
  async tryOnce(): Promise<boolean> {
    const { namespace, name, identity, leaseDurationSeconds } = this.options;
    const now = this.now();
    const path =
      `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/` +
      `${encodeURIComponent(name)}`;
    const current = await this.rest.request('GET', path);
    if (current.status === 404) {
      const created = await this.rest.request(
        'POST',
        `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`,
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        },
      );
      if (created.status === 201) this.renewedAtMs = now;
      return this.set(created.status === 201, created.status === 201 ? identity : null);
    }
    if (current.status !== 200) throw new Error(`reading Lease ${namespace}/${name}: ${statusMessage(current)}`);
    const lease = current.body as LeaseObject;
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? null;
    const record = `${holder ?? ''}\u0000${spec.renewTime ?? ''}`;
    if (this.observed === null || this.observed.record !== record) this.observed = { record, sinceMs: now };
    const expired = now - this.observed.sinceMs > (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder !== identity && holder !== null && holder !== '' && !expired) return this.set(false, holder);
    const takingOver = holder !== identity;
    const updated = await this.rest.request('PUT', path, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...lease.metadata, name, namespace },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: takingOver ? microTime(now) : (spec.acquireTime ?? microTime(now)),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
      },
    });
    if (updated.status === 200) this.renewedAtMs = now;
    return this.set(updated.status === 200, updated.status === 200 ? identity : holder);
  }

  private set(active: boolean, holder: string | null): boolean {
    const changed = active !== this.activeNow;
    this.activeNow = active;
    this.holder = holder;
    if (changed) this.options.onChange?.(active, holder);
    return active;
  }
}
