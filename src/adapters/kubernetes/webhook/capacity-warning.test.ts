import { describe, expect, it } from 'vitest';
import { CapacityCheck } from '../../../core/index.js';
import { clusterNodeOf } from '../schema/node-inventory.js';
import { gpusOf } from '../testing/kube-fixtures.js';
import { admit, type WebhookConfig } from './admit.js';
import type { JsonValue } from './json-patch.js';
import { applyJsonPatch, decodePatch } from './testing/apply-json-patch.js';
import { reviewOf, workloadOf } from './testing/reviews.js';

type Json = { [key: string]: JsonValue };

/** Two nodes of 2 × A10 (24 GiB), as the watch would see them. */
const twoGpuNodes = new CapacityCheck(
  ['gpu-b', 'gpu-a'].map((name) => clusterNodeOf(name, { schema: 'v1', gpus: gpusOf(name, 2, 'A10', 24_576) })),
  { policy: 'default', migReuseOnly: true },
);

function config(capacity: CapacityCheck | null): WebhookConfig {
  return { schedulerName: null, maxGpuMemoryMiB: () => 24_576, capacity: () => capacity };
}

function template(gpus: string): Json {
  return {
    spec: { containers: [{ name: 'main', image: 'cuda:12', resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
  };
}

function warningsOf(review: Json, cfg: WebhookConfig): readonly string[] | undefined {
  const outcome = admit(review, cfg);
  if (outcome.httpStatus !== 200) throw new Error(outcome.message);
  expect(outcome.review.response.allowed).toBe(true);
  return outcome.review.response.warnings;
}

const WHY =
  'no node could ever hold it, even empty (2 node(s)); the largest for it, gpu-a (2 GPU(s) A10 of up to 24576 ' +
  'MiB): only 2 of the 3 GPU(s) needed could hold its share (1000 milli-GPU in exclusive mode)';

describe('admit: a request no node could ever hold', () => {
  it('a Pod asking for 3 GPUs on 2-GPU nodes is admitted with a warning naming the largest node', () => {
    expect(warningsOf(reviewOf(workloadOf('Pod', 'three', template('3'))), config(twoGpuNodes))).toEqual([
      `gpushare: its pods stay Pending: ${WHY}`,
    ]);
  });

  it('a Deployment says where the request is', () => {
    expect(warningsOf(reviewOf(workloadOf('Deployment', 'three', template('3'))), config(twoGpuNodes))).toEqual([
      `spec.template: gpushare: its pods stay Pending: ${WHY}`,
    ]);
  });

  it("no warning for an object a controller made (its owner's creator was warned)", () => {
    const pod = workloadOf('Pod', 'three-x7k2p', template('3'));
    const owned = {
      ...pod,
      metadata: {
        ...(pod.metadata as Json),
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'three-5d8f', uid: 'u1', controller: true },
        ],
      },
    };
    expect(warningsOf(reviewOf(owned), config(twoGpuNodes))).toBeUndefined();
  });

  it('no warning for a request some node could hold, nor when the nodes are unknown', () => {
    expect(warningsOf(reviewOf(workloadOf('Pod', 'two', template('2'))), config(twoGpuNodes))).toBeUndefined();
    expect(warningsOf(reviewOf(workloadOf('Pod', 'three', template('3'))), config(null))).toBeUndefined();
    const { capacity: _none, ...withoutPort } = config(twoGpuNodes);
    expect(warningsOf(reviewOf(workloadOf('Pod', 'three', template('3'))), withoutPort)).toBeUndefined();
  });

  it('an UPDATE warns only when the request changed', () => {
    const cfg = config(twoGpuNodes);
    const admitted = (gpus: string): Json => {
      const object = workloadOf('Deployment', 'd', template(gpus));
      const outcome = admit(reviewOf(object), cfg);
      if (outcome.httpStatus !== 200) throw new Error(outcome.message);
      // The stored object: the webhook's rewrite applied (annotations and resources).
      return applyJsonPatch(object, decodePatch(outcome.review.response)) as Json;
    };
    const three = admitted('3');
    const scaled = { ...three, spec: { ...(three.spec as Json), replicas: 5 } };
    const keptWarnings = warningsOf(reviewOf(scaled, { operation: 'UPDATE', oldObject: three }), cfg) ?? [];
    expect(keptWarnings.filter((w) => w.includes('stay Pending'))).toEqual([]);
    const two = admitted('2');
    const grown = workloadOf('Deployment', 'd', template('3'));
    expect(
      (warningsOf(reviewOf(grown, { operation: 'UPDATE', oldObject: two }), cfg) ?? []).filter((w) =>
        w.includes('stay Pending'),
      ),
    ).toEqual([`spec.template: gpushare: its pods stay Pending: ${WHY}`]);
  });
});
