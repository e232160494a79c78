/**
 * Builders of AdmissionReview requests for the webhook's tests: a pod template (metadata and spec)
 * wrapped as a Pod or as any workload kind, in the shape the API server posts.
 */
import type { JsonValue } from '../json-patch.js';

type Json = { [key: string]: JsonValue };

/** apiVersion, group and where the template sits, per kind. */
export const KIND_INFO = {
  Pod: { apiVersion: 'v1', group: '', resource: 'pods' },
  Deployment: { apiVersion: 'apps/v1', group: 'apps', resource: 'deployments' },
  StatefulSet: { apiVersion: 'apps/v1', group: 'apps', resource: 'statefulsets' },
  DaemonSet: { apiVersion: 'apps/v1', group: 'apps', resource: 'daemonsets' },
  ReplicaSet: { apiVersion: 'apps/v1', group: 'apps', resource: 'replicasets' },
  Job: { apiVersion: 'batch/v1', group: 'batch', resource: 'jobs' },
  CronJob: { apiVersion: 'batch/v1', group: 'batch', resource: 'cronjobs' },
} as const;

/** A kind the webhook handles. */
export type KindName = keyof typeof KIND_INFO;

/** Path to the pod template in an object of `kind` (the object itself for a Pod). */
export function templatePathOf(kind: KindName): string[] {
  if (kind === 'Pod') return [];
  return kind === 'CronJob' ? ['spec', 'jobTemplate', 'spec', 'template'] : ['spec', 'template'];
}

/**
 * An object of `kind` named `name` around `template` (`{metadata?, spec}`); apps/v1 kinds get a
 * selector and template label `app: <name>` unless `selector: false`.
 */
export function workloadOf(kind: KindName, name: string, template: Json, options: { selector?: boolean } = {}): Json {
  const info = KIND_INFO[kind];
  const meta = { name, namespace: 'ml' };
  if (kind === 'Pod')
    return {
      apiVersion: info.apiVersion,
      kind,
      metadata: { ...meta, ...((template.metadata as Json | undefined) ?? {}) },
      spec: template.spec!,
    };
  const withLabels: Json =
    options.selector === false || info.group !== 'apps'
      ? template
      : { ...template, metadata: { ...((template.metadata as Json | undefined) ?? {}), labels: { app: name } } };
  const selector: Json =
    options.selector === false || info.group !== 'apps' ? {} : { selector: { matchLabels: { app: name } } };
  if (kind === 'CronJob')
    return {
      apiVersion: info.apiVersion,
      kind,
      metadata: meta,
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: withLabels } } },
    };
  const replicas: Json = kind === 'Job' ? {} : { replicas: 2 };
  return {
    apiVersion: info.apiVersion,
    kind,
    metadata: meta,
    spec: { ...replicas, ...selector, template: withLabels },
  };
}

/** An AdmissionReview v1 request for `object`. */
export function reviewOf(
  object: Json,
  options: {
    operation?: 'CREATE' | 'UPDATE' | 'DELETE';
    oldObject?: Json;
    uid?: string;
    subResource?: string;
    username?: string;
  } = {},
): Json {
  const kind = object.kind as KindName;
  const info = KIND_INFO[kind] ?? { group: '', apiVersion: 'v1', resource: `${String(object.kind).toLowerCase()}s` };
  const version = info.apiVersion.includes('/') ? info.apiVersion.split('/')[1]! : info.apiVersion;
  const operation = options.operation ?? 'CREATE';
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: info.group, version, kind: String(object.kind) },
      resource: { group: info.group, version, resource: info.resource },
      ...(options.subResource !== undefined ? { subResource: options.subResource } : {}),
      requestKind: { group: info.group, version, kind: String(object.kind) },
      name: ((object.metadata as Json | undefined)?.name as string | undefined) ?? '',
      namespace: 'ml',
      operation,
      userInfo: { username: options.username ?? 'alice', groups: ['system:authenticated'] },
      object: operation === 'DELETE' ? null : object,
      oldObject: options.oldObject ?? null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'UPDATE' ? 'UpdateOptions' : 'CreateOptions' },
    },
  };
}
