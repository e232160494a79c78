/**
 * One active extender replica: a `coordination.k8s.io/v1` Lease the active replica renews. A
 * replica takes the Lease when it does not exist, when it holds it already, or when its holder
 * has not renewed it for `leaseDurationSeconds`; it stops being active as soon as a renewal fails
 * or another holder shows up. Renewals run every third of the duration (client-go's leader
 * election uses the same Lease fields: holderIdentity, leaseDurationSeconds, acquireTime,
 * renewTime, leaseTransitions).
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
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
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

  constructor(private readonly rest: KubeRest, private readonly options: LeaseOptions) {}

  /** True while this replica holds the Lease. */
  get active(): boolean {
    return this.activeNow;
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
    const now = (this.options.now ?? Date.now)();
    const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases/${encodeURIComponent(name)}`;
    const current = await this.rest.request('GET', path);
    if (current.status === 404) {
      const created = await this.rest.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      });
      return this.set(created.status === 201, created.status === 201 ? identity : null);
    }
    if (current.status !== 200) throw new Error(`reading Lease ${namespace}/${name}: ${statusMessage(current)}`);
    const lease = current.body as LeaseObject;
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? null;
    const renewedMs = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = renewedMs + (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000 < now;
    if (holder !== identity && holder !== null && holder !== '' && !expired) return this.set(false, holder);
    const takingOver = holder !== identity;
    const updated = await this.rest.request('PUT', path, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...lease.metadata, name, namespace },
      spec: {
        holderIdentity: identity, leaseDurationSeconds,
        acquireTime: takingOver ? microTime(now) : spec.acquireTime ?? microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
      },
    });
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
