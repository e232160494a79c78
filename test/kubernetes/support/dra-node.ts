/**
 * Helpers of the DRA driver's real-node test (dra-on-node.test.ts): the shapes it reads from the
 * API server and the checkpoint, the repository's DRA manifests, pods with a claim that print
 * their GPU environment, and the driver's JSON log lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DRA_DEVICE_CLASSES } from '../../../src/adapters/kubernetes/dra/dra-names.js';
import { quantityValue } from '../../../src/adapters/kubernetes/schema/quantity.js';
import { PRINT_GPU_ENV } from './gpu-env-pod.js';
import { CHART_DIR } from './helm.js';
import { TEST_IMAGES } from './node-images.js';

/** deploy/kubernetes/dra: the claim templates and the DRA half-GPU Deployment. */
export const DRA_MANIFEST_DIR = join(CHART_DIR, '..', '..', 'kubernetes', 'dra');

/** A device of a ResourceSlice as the tests read it. */
export interface SliceDevice {
  name: string;
  attributes?: Record<string, { string?: string }>;
}
/** A ResourceSlice as the tests read it. */
export interface Slice {
  metadata: { name: string };
  spec: { driver: string; nodeName?: string; pool: { generation: number }; devices?: SliceDevice[] };
}
/** One result of a claim's allocation. */
export interface Result {
  request: string;
  driver: string;
  pool: string;
  device: string;
  shareID?: string;
}
/** A ResourceClaim as the tests read it. */
export interface Claim {
  metadata: { name: string; uid: string };
  status?: { allocation?: { devices: { results: Result[] } } };
}
/** The driver's checkpoint file, the parts the tests read. */
export interface Checkpoint {
  claims: Record<string, { name: string; specFile: string | null }>;
}

/** A template's or Deployment's YAML from deploy/kubernetes/dra. */
export function manifest<T>(file: string): T {
  return parse(readFileSync(join(DRA_MANIFEST_DIR, file), 'utf8')) as T;
}

/** The driver's log lines about registration and claims, shortened, for the test's output. */
export function driverEvents(log: string): string[] {
  return log
    .split('\n')
    .filter((line) =>
      /"msg":"(registered with the kubelet|claim prepared|claim unprepared|published the ResourceSlices)/.test(line),
    )
    .map((line) => {
      const entry = JSON.parse(line) as Record<string, unknown> & { time: number; msg: string };
      const details = ['uid', 'created', 'generation', 'why']
        .filter((key) => entry[key] !== undefined)
        .map((key) => ` ${key}=${JSON.stringify(entry[key])}`);
      return `${new Date(entry.time).toISOString()} ${entry.msg}${details.join('')}`;
    });
}

/** A pod with one claim from the ResourceClaimTemplate `template`, printing its GPU environment. */
export function claimPod(name: string, template: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: template }],
      containers: [
        { name: 'main', image: TEST_IMAGES.busybox, command: PRINT_GPU_ENV, resources: { claims: [{ name: 'gpu' }] } },
      ],
    },
  };
}

/** Quantities as numbers, so that `81920Mi` and the API server's `80Gi` compare equal. */
export function canonical(value: unknown): unknown {
  if (typeof value === 'string') return quantityValue(value) ?? value;
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

/** How many times `text` occurs in `log`. */
export function count(log: string, text: string): number {
  return log.split(text).length - 1;
}

/** A ResourceClaimTemplate `name` of one whole GPU (DeviceClass `gpu.gpushare.io`). */
export function wholeGpuClaimTemplate(name: string): object {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name },
    spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: DRA_DEVICE_CLASSES.gpu } }] } } },
  };
}
