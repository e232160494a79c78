/**
 * Port: the provider that adds and removes a node template's nodes (a cloud's auto-scaling group
 * through an operator's script, a Cluster API MachineDeployment through its `/scale` subresource,
 * an in-memory pool). The autoscaler loop (app/autoscaling/) tells it, per template, the count the
 * template's group should have and which nodes go; never a difference to apply.
 *
 * Adapters: src/adapters/autoscaler/command-provider.ts (`command`),
 * src/adapters/kubernetes/autoscaler/kubernetes-provider.ts (`kubernetes`),
 * src/adapters/autoscaler/simulated-provider.ts (`simulated`, in memory).
 */

/** What one call asks of the provider for one template. */
export interface ScaleRequest {
  /** The decision this call carries out; the same on a call repeated after a restart. */
  readonly decisionId: string;
  /** The template's name: the key of the group the provider scales. */
  readonly template: string;
  /** Nodes the group should have once the call is done, ≥ 0 (absolute, never a delta). */
  readonly desiredCount: number;
  /**
   * Nodes that leave (Node names), already cordoned and without gpushare pods: the provider removes
   * these rather than others. Empty on a scale-up.
   */
  readonly removeNodes: readonly string[];
}

/** How a call went. */
export interface ProviderOutcome {
  /** False: the provider failed (the loop records a failure and the template backs off). */
  readonly ok: boolean;
  /**
   * Whether the provider wrote anything: false when the group already had the request (a call
   * repeated after a restart).
   */
  readonly changed: boolean;
  /** One line for people: what was done, or why it failed (exit code and output, HTTP status). */
  readonly detail: string;
}

/**
 * The provider of one autoscaler. `scale` is idempotent: calling it twice with the same request
 * leaves the group as one call does (the `kubernetes` and `simulated` providers write nothing the
 * second time; a `command` script gets the same arguments and must behave the same way).
 */
export interface NodeProvider {
  /** `command`, `kubernetes` or `simulated`. */
  readonly kind: string;
  /**
   * Carries out `request`. @returns the outcome; a failure is an outcome (ok false), never a
   *   rejection (adapters catch their own errors)
   */
  scale(request: ScaleRequest): Promise<ProviderOutcome>;
}
