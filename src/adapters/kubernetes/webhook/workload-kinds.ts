/**
 * The kinds the webhook rewrites and where each keeps its pod template: a Pod is its own template;
 * Deployments, StatefulSets, DaemonSets, ReplicaSets (apps/v1) and Jobs (batch/v1) keep it at
 * `spec.template`; CronJobs (batch/v1) at `spec.jobTemplate.spec.template` (k8s.io/api apps/v1 and
 * batch/v1 types.go).
 */

/** A kind the webhook handles. */
export interface WorkloadKind {
  /** `Pod`, `Deployment`, … */
  readonly kind: string;
  /** Path from the object to its pod template (the object holding `metadata` and `spec`); [] for a Pod. */
  readonly templatePath: readonly string[];
  /**
   * Whether the kind requires `spec.selector` matching its template's labels (apps/v1 validation).
   * A Job does not: the API server generates its selector and template labels
   * (`batch.kubernetes.io/controller-uid`) when the user gives none.
   */
  readonly requiresSelector: boolean;
}

const KINDS: Readonly<Record<string, WorkloadKind>> = {
  '/Pod': { kind: 'Pod', templatePath: [], requiresSelector: false },
  'apps/Deployment': { kind: 'Deployment', templatePath: ['spec', 'template'], requiresSelector: true },
  'apps/StatefulSet': { kind: 'StatefulSet', templatePath: ['spec', 'template'], requiresSelector: true },
  'apps/DaemonSet': { kind: 'DaemonSet', templatePath: ['spec', 'template'], requiresSelector: true },
  'apps/ReplicaSet': { kind: 'ReplicaSet', templatePath: ['spec', 'template'], requiresSelector: true },
  'batch/Job': { kind: 'Job', templatePath: ['spec', 'template'], requiresSelector: false },
  'batch/CronJob': {
    kind: 'CronJob',
    templatePath: ['spec', 'jobTemplate', 'spec', 'template'],
    requiresSelector: false,
  },
};

/**
 * The handled kind for an AdmissionRequest's `kind` (API group and kind; the version is not consulted), or undefined.
 */
export function workloadKindOf(group: string, kind: string): WorkloadKind | undefined {
  return KINDS[`${group}/${kind}`];
}
