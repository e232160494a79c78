/**
 * The problem gpushare solves, shown on the real API server: the fractional-GPU Deployment users
 * write (fixtures/half-gpu-deployment.yaml, as in the issue) is rejected by kube-apiserver v1.37.2
 * when no webhook rewrites it, because extended resources must be integers.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_VERSION, kubernetesAvailable } from './support/binaries.js';
import { useControlPlane } from './support/use-control-plane.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'half-gpu-deployment.yaml');

/**
 * What `kubectl apply -f half-gpu-deployment.yaml` prints on stderr against kube-apiserver
 * v1.37.2 with no webhook, recorded from this test. The manifest as written also lacks a selector
 * and template labels; the API server reports every error at once. A pod template's requests are
 * not defaulted from its limits (a Pod's are), so only the limit is named.
 */
const RECORDED_AS_WRITTEN = [
  'The Deployment "gpu-shared-job" is invalid: ',
  '* spec.selector: Required value',
  '* spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`',
  '* spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer',
].join('\n');

/**
 * The same manifest with a selector and matching labels: the integer error is all that is left (one error: one line).
 */
const RECORDED_WITH_SELECTOR =
  'The Deployment "gpu-shared-job" is invalid: ' +
  'spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": must be an ' +
  'integer';

const INTEGER_ERROR =
  'spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer';

describe.skipIf(!kubernetesAvailable())('kube-apiserver without gpushare', () => {
  const plane = useControlPlane({ scheduler: false });

  it(`runs kubectl and kube-apiserver ${KUBERNETES_VERSION}`, async () => {
    const result = await plane().kubectl(['version', '--output=json']);
    expect(result.code).toBe(0);
    const versions = JSON.parse(result.stdout) as {
      clientVersion: { gitVersion: string };
      serverVersion: { gitVersion: string };
    };
    expect(versions.clientVersion.gitVersion).toBe(KUBERNETES_VERSION);
    expect(versions.serverVersion.gitVersion).toBe(KUBERNETES_VERSION);
  });

  it('rejects the half-GPU Deployment as written: nvidia.com/gpu must be an integer', async () => {
    const result = await plane().kubectl(['apply', '--filename', FIXTURE]);
    process.stdout.write(`kubectl apply --filename half-gpu-deployment.yaml: exit ${result.code}\n${result.stderr}`);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(INTEGER_ERROR);
    expect(result.stderr.trimEnd()).toBe(RECORDED_AS_WRITTEN);
    expect((await plane().request('GET', '/apis/apps/v1/namespaces/default/deployments/gpu-shared-job')).status).toBe(
      404,
    );
  });

  it('still rejects it with a selector and labels added: the integer is the error that remains', async () => {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gpu-shared-job' },
      spec: {
        selector: { matchLabels: { app: 'gpu-shared-job' } },
        template: {
          metadata: { labels: { app: 'gpu-shared-job' } },
          spec: {
            containers: [
              {
                name: 'tensorflow',
                image: 'tensorflow/tensorflow:latest',
                resources: { limits: { 'nvidia.com/gpu': 0.5 } },
                env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: '0' }],
              },
            ],
          },
        },
      },
    };
    const result = await plane().kubectl(['apply', '--filename', '-'], { input: JSON.stringify(manifest) });
    process.stdout.write(`kubectl apply (with selector and labels): exit ${result.code}\n${result.stderr}`);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd()).toBe(RECORDED_WITH_SELECTOR);
    // The same rule holds for a bare Pod, read straight from the API (HTTP 422, reason Invalid),
    // where the request, defaulted from the limit, is named too.
    const pod = await plane().request<{ reason: string; details: { causes: { field: string; message: string }[] } }>(
      'POST',
      '/api/v1/namespaces/default/pods',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'half-gpu' },
        spec: { containers: [{ name: 'main', image: 'busybox', resources: { limits: { 'nvidia.com/gpu': '0.5' } } }] },
      },
    );
    expect(pod.status).toBe(422);
    expect(pod.body.reason).toBe('Invalid');
    expect(pod.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.containers[0].resources.limits[nvidia.com/gpu]',
        message: 'Invalid value: "500m": must be an integer',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.containers[0].resources.requests[nvidia.com/gpu]',
        message: 'Invalid value: "500m": must be an integer',
      },
    ]);
  });
});
