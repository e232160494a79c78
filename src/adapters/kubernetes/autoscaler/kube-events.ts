/**
 * The autoscaler's actions as core/v1 Events: reason the Status code, message `statusMessage` of
 * that Status (docs/reasons.md, "What the autoscaler decides"), on the object the action is about:
 * a Node for a cordon or the removal of a node that exists (in namespace `default`, as the kubelet
 * writes node Events), the template's scaled object for a change of count, a provider failure and
 * the reasons nothing was done that name a template (each once while it lasts: an Event when its
 * code, template and node were not among the previous round's), and the autoscaler's own ConfigMap otherwise
 * (and for every template-level Event when the provider scales no object: `command`, `simulated`).
 * Type Warning for failures and limits, Normal otherwise. A write that fails is logged, never
 * thrown.
 */
import { AUTOSCALE_CODES, statusMessage, type Status } from '../../../core/index.js';
import type { AutoscalerReport, AutoscalerReporter } from '../../../app/ports/autoscaler-reporter.js';
import { statusMessage as httpMessage, type KubeRest } from '../extender/kube-rest.js';

/** An Event's involvedObject. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** '' for a cluster-scoped object (a Node). */
  readonly namespace: string;
}

/** Where the Events go and who writes them. */
export interface KubeEventsOptions {
  /** The scaled object of a template; undefined when the provider scales none. */
  readonly targetOf: (template: string) => ObjectRef | undefined;
  /** The autoscaler's ConfigMap: the object of Events no other object fits. */
  readonly fallback: ObjectRef;
  /** `reportingInstance` (pod or host name). */
  readonly instance: string;
  readonly warn: (message: string) => void;
  /** Now, ms since the epoch. */
  readonly nowMs?: () => number;
}

/** The codes whose Events are Warnings. */
const WARNINGS: ReadonlySet<string> = new Set([
  AUTOSCALE_CODES.providerBackoff,
  AUTOSCALE_CODES.bootTimedOut,
  AUTOSCALE_CODES.noTemplateFits,
  AUTOSCALE_CODES.maxNodes,
  AUTOSCALE_CODES.maxCost,
  AUTOSCALE_CODES.templateMaxCount,
]);

/** An Event's message at most (the API server's limit on core/v1 Event messages is larger; kept short for kubectl). */
const MAX_MESSAGE = 1024;

/** A reporter that writes Events through `rest`. */
export function kubeEventsReporter(rest: KubeRest, options: KubeEventsOptions): AutoscalerReporter {
  const now = options.nowMs ?? Date.now;
  let counter = 0;
  /** The previous round's waits, by code, template and node. */
  let previousWaits = new Set<string>();
  const waitKey = (s: Status): string => `${s.code}\u0000${String(s.details.template)}\u0000${String(s.details.node)}`;
  const nodeRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Node', name, namespace: '' });
  const templateRef = (template: unknown): ObjectRef =>
    (typeof template === 'string' ? options.targetOf(template) : undefined) ?? options.fallback;

  async function post(ref: ObjectRef, reason: Status): Promise<void> {
    const namespace = ref.namespace === '' ? 'default' : ref.namespace;
    const time = new Date(now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const message = statusMessage(reason);
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${ref.name}.${now().toString(16)}${(++counter).toString(16)}`, namespace },
      involvedObject: { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: ref.namespace },
      reason: reason.code,
      message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message,
      type: WARNINGS.has(reason.code) ? 'Warning' : 'Normal',
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: 'gpushare-autoscaler' },
      reportingComponent: 'gpushare.io/autoscaler',
      reportingInstance: options.instance,
    };
    try {
      const answer = await rest.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, body);
      if (answer.status !== 201)
        options.warn(`could not write Event ${reason.code} on ${ref.kind} ${ref.name}: ${httpMessage(answer)}`);
    } catch (err) {
      options.warn(`could not write Event ${reason.code} on ${ref.kind} ${ref.name}: ${(err as Error).message}`);
    }
  }

  return {
    async report(report: AutoscalerReport): Promise<void> {
      switch (report.kind) {
        case 'scale':
        case 'provider-failure':
          return post(templateRef(report.template), report.reason);
        case 'cordon':
        case 'kept-busy':
          return post(nodeRef(report.node), report.reason);
        case 'remove':
          return post(report.nodeExists ? nodeRef(report.node) : templateRef(report.template), report.reason);
        case 'waits': {
          const seen = previousWaits;
          previousWaits = new Set(report.statuses.map(waitKey));
          for (const s of report.statuses) if (!seen.has(waitKey(s))) await post(templateRef(s.details.template), s);
          return;
        }
        default:
          // resumed, desired: the log and the metrics only (no Status code).
          return;
      }
    },
  };
}
