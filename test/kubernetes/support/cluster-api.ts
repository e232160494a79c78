/**
 * A Cluster API stand-in for the autoscaler's tests on the test control plane: minimal
 * CustomResourceDefinitions of `MachineDeployment` (with the `/scale` subresource:
 * `specReplicasPath: .spec.replicas`, `statusReplicasPath: .status.replicas`, as Cluster API's own)
 * and `Machine` (no status subresource, so a test writes `status.nodeRef` on create), in group
 * `cluster.x-k8s.io/v1beta1`. No controller runs: the test creates and deletes Machines and Nodes
 * itself, as Cluster API would. Also the kube-apiserver audit policy that records the autoscaler's
 * writes, and a reader of that log: the tests count its calls where the API server saw them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ControlPlane } from './control-plane.js';

export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_VERSION = 'v1beta1';
const BASE = `/apis/${CAPI_GROUP}/${CAPI_VERSION}`;

/** A CRD of group cluster.x-k8s.io, served and stored as v1beta1. */
function crd(kind: string, plural: string, subresources: object | undefined): object {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${CAPI_GROUP}` },
    spec: {
      group: CAPI_GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: CAPI_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
          ...(subresources ? { subresources } : {}),
        },
      ],
    },
  };
}

/** Creates both CRDs and waits until the API server serves them (bounded by `poll`). */
export async function installClusterApiCrds(
  plane: ControlPlane,
  poll: (what: string, check: () => Promise<true | undefined>) => Promise<unknown>,
): Promise<void> {
  const scale = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
  for (const body of [crd('MachineDeployment', 'machinedeployments', scale), crd('Machine', 'machines', undefined)]) {
    const res = await plane.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body);
    if (res.status !== 201) throw new Error(`create CRD: ${res.status} ${res.text}`);
  }
  await poll('the Cluster API CRDs served', async () => {
    const res = await plane.request<{ resources?: { name: string }[] }>('GET', BASE);
    const names = res.body?.resources?.map((r) => r.name) ?? [];
    return ['machinedeployments/scale', 'machines'].every((n) => names.includes(n)) ? true : undefined;
  });
}

/** Creates MachineDeployment `namespace/name` with `replicas`. */
export async function createMachineDeployment(
  plane: ControlPlane,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  const body = {
    apiVersion: `${CAPI_GROUP}/${CAPI_VERSION}`,
    kind: 'MachineDeployment',
    metadata: { name, namespace },
    spec: { clusterName: 'test', replicas },
  };
  const res = await plane.request('POST', `${BASE}/namespaces/${namespace}/machinedeployments`, body);
  if (res.status !== 201) throw new Error(`create MachineDeployment: ${res.status} ${res.text}`);
}

/** `spec.replicas` of MachineDeployment `namespace/name` through its `/scale`. */
export async function replicasOf(plane: ControlPlane, namespace: string, name: string): Promise<number> {
  const res = await plane.request<{ spec?: { replicas?: number } }>(
    'GET',
    `${BASE}/namespaces/${namespace}/machinedeployments/${name}/scale`,
  );
  if (res.status !== 200) throw new Error(`GET scale: ${res.status} ${res.text}`);
  return res.body.spec?.replicas ?? 0;
}

/** A Machine as the tests read it. */
export interface TestMachine {
  readonly metadata: { readonly name: string; readonly annotations?: Record<string, string> };
  readonly status?: { readonly nodeRef?: { readonly name?: string } };
}

/** Creates Machine `namespace/name` whose `status.nodeRef` names `node`, as Cluster API does once the node joined. */
export async function createMachine(plane: ControlPlane, namespace: string, name: string, node: string): Promise<void> {
  const body = {
    apiVersion: `${CAPI_GROUP}/${CAPI_VERSION}`,
    kind: 'Machine',
    metadata: { name, namespace, labels: { 'cluster.x-k8s.io/deployment-name': 'gpu-a100' } },
    spec: { clusterName: 'test' },
    status: { nodeRef: { apiVersion: 'v1', kind: 'Node', name: node }, phase: 'Running' },
  };
  const res = await plane.request('POST', `${BASE}/namespaces/${namespace}/machines`, body);
  if (res.status !== 201) throw new Error(`create Machine: ${res.status} ${res.text}`);
}

/** The Machines of `namespace`, by name. */
export async function machines(plane: ControlPlane, namespace: string): Promise<Map<string, TestMachine>> {
  const res = await plane.request<{ items: TestMachine[] }>('GET', `${BASE}/namespaces/${namespace}/machines`);
  if (res.status !== 200) throw new Error(`list Machines: ${res.status} ${res.text}`);
  return new Map(res.body.items.map((m) => [m.metadata.name, m]));
}

/** Deletes Machine `namespace/name` (Cluster API's part of a scale-down). */
export async function deleteMachine(plane: ControlPlane, namespace: string, name: string): Promise<void> {
  const res = await plane.request('DELETE', `${BASE}/namespaces/${namespace}/machines/${name}`);
  if (res.status !== 200) throw new Error(`delete Machine: ${res.status} ${res.text}`);
}

/**
 * An audit policy that records, at Metadata level, the writes of `user` to MachineDeployments'
 * `/scale`, to Machines and to Nodes, and nothing else.
 */
export function writeAuditPolicy(path: string, user: string): void {
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [
        {
          level: 'Metadata',
          users: [user],
          verbs: ['create', 'update', 'patch'],
          resources: [
            { group: CAPI_GROUP, resources: ['machinedeployments/scale', 'machines'] },
            { group: '', resources: ['nodes'] },
          ],
        },
        { level: 'None' },
      ],
    }),
  );
}

/** One write the API server recorded. */
export interface AuditedWrite {
  readonly verb: string;
  /** `machinedeployments/scale`, `machines`, `nodes`. */
  readonly resource: string;
  readonly name: string;
  readonly code: number;
}

/** The writes of the audit log at `path`, in the order the API server answered them. */
export function auditedWrites(path: string): AuditedWrite[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine)
    .filter((e) => e.stage === 'ResponseComplete')
    .map((e) => ({
      verb: e.verb,
      resource: e.objectRef.subresource ? `${e.objectRef.resource}/${e.objectRef.subresource}` : e.objectRef.resource,
      name: e.objectRef.name ?? '',
      code: e.responseStatus?.code ?? 0,
    }));
}

interface AuditLine {
  readonly stage: string;
  readonly verb: string;
  readonly objectRef: { readonly resource: string; readonly subresource?: string; readonly name?: string };
  readonly responseStatus?: { readonly code?: number };
}
