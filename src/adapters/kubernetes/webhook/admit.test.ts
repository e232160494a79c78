import { describe, expect, it } from 'vitest';
import { admit, type WebhookConfig } from './admit.js';
import type { AdmissionReviewResponse } from './admission-review.js';
import { escapePointerToken, jsonPointer, type JsonValue } from './json-patch.js';
import { applyJsonPatch, decodePatch } from './testing/apply-json-patch.js';
import { KIND_INFO, reviewOf, templatePathOf, workloadOf, type KindName } from './testing/reviews.js';

type Json = { [key: string]: JsonValue };

const KINDS = Object.keys(KIND_INFO) as KindName[];
const ENV_WARNING_TF = 'container "tensorflow": removed NVIDIA_VISIBLE_DEVICES="0": gpushare assigns GPUs';
const ENV_WARNING_SIDECAR = 'container "sidecar": removed NVIDIA_VISIBLE_DEVICES="all": gpushare assigns GPUs';

function config(
  overrides: Partial<{ schedulerName: string | null; maxGpuMemoryMiB: number | null }> = {},
): WebhookConfig {
  const max = overrides.maxGpuMemoryMiB === undefined ? 81920 : overrides.maxGpuMemoryMiB;
  return { schedulerName: overrides.schedulerName ?? null, maxGpuMemoryMiB: () => max };
}

function respond(review: Json, cfg = config()): AdmissionReviewResponse['response'] {
  const outcome = admit(review, cfg);
  if (outcome.httpStatus !== 200) throw new Error(`HTTP ${outcome.httpStatus}: ${outcome.message}`);
  expect(outcome.review.apiVersion).toBe('admission.k8s.io/v1');
  expect(outcome.review.kind).toBe('AdmissionReview');
  expect(outcome.review.response.uid).toBe((review.request as Json).uid);
  return outcome.review.response;
}

/** Admits `object` (CREATE unless said), applies the patch, and returns the response and the result. */
function admitAndApply(
  object: Json,
  cfg = config(),
  options: Parameters<typeof reviewOf>[1] = {},
): { response: AdmissionReviewResponse['response']; result: Json } {
  const response = respond(reviewOf(object, options), cfg);
  return { response, result: applyJsonPatch(object, decodePatch(response)) as Json };
}

function at(object: Json, path: readonly string[]): Json {
  return path.reduce<Json>((node, key) => node[key] as Json, object);
}

/** The container plus a sidecar, asking for `gpu` in limits and requests. */
function tensorflowTemplate(gpu: JsonValue, metadata?: Json): Json {
  return {
    ...(metadata !== undefined ? { metadata } : {}),
    spec: {
      containers: [
        {
          name: 'tensorflow',
          image: 'tensorflow/tensorflow:latest',
          resources: { limits: { 'nvidia.com/gpu': gpu, cpu: '2' }, requests: { 'nvidia.com/gpu': gpu, cpu: '1' } },
          env: [
            { name: 'NVIDIA_VISIBLE_DEVICES', value: '0' },
            { name: 'TF_CPP_MIN_LOG_LEVEL', value: '2' },
          ],
        },
        { name: 'sidecar', image: 'busybox', env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' }] },
      ],
    },
  };
}

const AMOUNTS: { gpu: JsonValue; annotations: Record<string, string>; gpushare: Record<string, string> }[] = [
  {
    gpu: '0.5',
    annotations: { 'gpushare.io/gpu-count': '1', 'gpushare.io/gpu-milli': '500' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
  },
  {
    gpu: '500m',
    annotations: { 'gpushare.io/gpu-count': '1', 'gpushare.io/gpu-milli': '500' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
  },
  {
    gpu: 0.25,
    annotations: { 'gpushare.io/gpu-count': '1', 'gpushare.io/gpu-milli': '250' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '250' },
  },
  {
    gpu: '1',
    annotations: { 'gpushare.io/gpu-count': '1', 'gpushare.io/gpu-milli': '1000' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu': '1', 'gpushare.io/gpu-milli': '1000' },
  },
  {
    gpu: 2,
    annotations: { 'gpushare.io/gpu-count': '2', 'gpushare.io/gpu-milli': '1000' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu': '2', 'gpushare.io/gpu-milli': '2000' },
  },
  {
    gpu: '3000m',
    annotations: { 'gpushare.io/gpu-count': '3', 'gpushare.io/gpu-milli': '1000' },
    gpushare: { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu': '3', 'gpushare.io/gpu-milli': '3000' },
  },
];

describe('admit: rewriting nvidia.com/gpu', () => {
  for (const kind of KINDS) {
    for (const amount of AMOUNTS) {
      it(
        `${kind} with nvidia.com/gpu ${JSON.stringify(amount.gpu)}: gpushare resources and annotations, no ` +
          `NVIDIA_VISIBLE_DEVICES, idempotent`,
        () => {
          const object = workloadOf(kind, 'trainer', tensorflowTemplate(amount.gpu));
          const { response, result } = admitAndApply(object);
          expect(response.allowed).toBe(true);
          expect(response.patchType).toBe('JSONPatch');
          expect(response.warnings).toEqual([ENV_WARNING_TF, ENV_WARNING_SIDECAR]);
          const template = at(result, templatePathOf(kind));
          const [tf, sidecar] = (template.spec as Json).containers as Json[];
          expect(tf!.resources).toEqual({
            limits: { cpu: '2', ...amount.gpushare },
            requests: { cpu: '1', ...amount.gpushare },
          });
          expect(tf!.env).toEqual([{ name: 'TF_CPP_MIN_LOG_LEVEL', value: '2' }]);
          expect(sidecar).toEqual({ name: 'sidecar', image: 'busybox' });
          expect((template.metadata as Json).annotations).toEqual({
            'gpushare.io/schema': 'v1',
            ...amount.annotations,
            'gpushare.io/mode': 'auto',
            'gpushare.io/container': 'tensorflow',
          });
          // Everything else is as it was.
          expect({ ...result, spec: null, metadata: null }).toEqual({ ...object, spec: null, metadata: null });
          if (kind !== 'Pod') expect(result.metadata).toEqual(object.metadata);
          else
            expect({ ...(result.metadata as Json), annotations: null }).toEqual({
              ...(object.metadata as Json),
              annotations: null,
            });

          const again = respond(reviewOf(result));
          expect(again).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
        },
      );
    }
  }

  it("the issue's Deployment as written: rewritten, with the selector fix-up and two warnings", () => {
    const deployment: Json = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gpu-shared-job', namespace: 'ml' },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'tensorflow',
                image: 'tensorflow/tensorflow:latest',
                // What the API server sends: 0.5 normalised to 500m, requests defaulted from limits.
                resources: { limits: { 'nvidia.com/gpu': '500m' }, requests: { 'nvidia.com/gpu': '500m' } },
                env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: '0' }],
              },
            ],
          },
        },
      },
    };
    const response = respond(reviewOf(deployment), config({ schedulerName: 'gpushare-scheduler' }));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual([
      ENV_WARNING_TF,
      'spec.selector and spec.template.metadata.labels were missing: added gpushare.io/workload=gpu-shared-job to both',
    ]);
    const patch = decodePatch(response);
    const c0 = '/spec/template/spec/containers/0';
    expect(patch).toEqual(
      expect.arrayContaining([
        { op: 'remove', path: `${c0}/resources/limits/nvidia.com~1gpu` },
        { op: 'remove', path: `${c0}/resources/requests/nvidia.com~1gpu` },
        { op: 'add', path: `${c0}/resources/limits/gpushare.io~1gpu-slot`, value: '1' },
        { op: 'add', path: `${c0}/resources/limits/gpushare.io~1gpu-milli`, value: '500' },
        { op: 'remove', path: `${c0}/env` },
        { op: 'add', path: '/spec/template/spec/schedulerName', value: 'gpushare-scheduler' },
        { op: 'add', path: '/spec/selector', value: { matchLabels: { 'gpushare.io/workload': 'gpu-shared-job' } } },
      ]),
    );
    // The template had no metadata: one add creates it with the annotations and the label.
    expect(patch).toContainEqual({
      op: 'add',
      path: '/spec/template/metadata',
      value: {
        annotations: {
          'gpushare.io/schema': 'v1',
          'gpushare.io/gpu-count': '1',
          'gpushare.io/gpu-milli': '500',
          'gpushare.io/mode': 'auto',
          'gpushare.io/container': 'tensorflow',
        },
        labels: { 'gpushare.io/workload': 'gpu-shared-job' },
      },
    });
    const result = applyJsonPatch(deployment, patch) as Json;
    expect(respond(reviewOf(result), config({ schedulerName: 'gpushare-scheduler' }))).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: true,
    });
  });

  it('adds single annotations with RFC 6901 escaping when the map exists; escapes ~ and /', () => {
    const pod = workloadOf('Pod', 'p', tensorflowTemplate('1', { annotations: { team: 'vision' } }));
    const patch = decodePatch(respond(reviewOf(pod)));
    expect(patch).toContainEqual({ op: 'add', path: '/metadata/annotations/gpushare.io~1gpu-count', value: '1' });
    expect(patch.filter((op) => op.path === '/metadata/annotations')).toEqual([]);
    expect(escapePointerToken('a~b/c')).toBe('a~0b~1c');
    expect(jsonPointer(['metadata', 'annotations', 'x~/y', 0])).toBe('/metadata/annotations/x~0~1y/0');
  });

  it('honours the gpushare annotations the user wrote: memory, mode and isolation', () => {
    const metadata = {
      annotations: {
        'gpushare.io/gpu-memory-mib': '20480',
        'gpushare.io/mode': 'auto',
        'gpushare.io/isolation': 'strict',
      },
    };
    const { response, result } = admitAndApply(workloadOf('Deployment', 'd', tensorflowTemplate('0.25', metadata)));
    expect(response.allowed).toBe(true);
    const template = at(result, ['spec', 'template']);
    expect((template.metadata as Json).annotations).toEqual({
      'gpushare.io/schema': 'v1',
      'gpushare.io/gpu-count': '1',
      'gpushare.io/gpu-milli': '250',
      'gpushare.io/gpu-memory-mib': '20480',
      'gpushare.io/mode': 'auto',
      'gpushare.io/isolation': 'strict',
      'gpushare.io/container': 'tensorflow',
    });
    const resources = {
      'gpushare.io/gpu-slot': '1',
      'gpushare.io/gpu-milli': '250',
      'gpushare.io/gpu-memory-mib': '20480',
    };
    expect(((template.spec as Json).containers as Json[])[0]!.resources).toEqual({
      limits: { cpu: '2', ...resources },
      requests: { cpu: '1', ...resources },
    });
    expect(respond(reviewOf(result)).patch).toBeUndefined();
  });

  it('a pod stated only by gpushare annotations gets the resources and the schema version', () => {
    const template = {
      metadata: {
        annotations: {
          'gpushare.io/gpu-count': '2',
          'gpushare.io/gpu-milli': '300',
          'gpushare.io/mode': 'mps',
          'gpushare.io/container': 'worker',
        },
      },
      spec: { containers: [{ name: 'worker', image: 'w' }] },
    };
    const { response, result } = admitAndApply(workloadOf('Pod', 'p', template));
    expect(response.warnings).toBeUndefined();
    expect((result.metadata as Json).annotations).toEqual({
      ...template.metadata.annotations,
      'gpushare.io/schema': 'v1',
    });
    const resources = { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '600' };
    expect(((result.spec as Json).containers as Json[])[0]!.resources).toEqual({
      requests: resources,
      limits: resources,
    });
  });

  it(
    'a later nvidia.com/gpu wins over the stored annotations (kubectl apply of a changed manifest), with a ' +
      'warning',
    () => {
      const first = admitAndApply(workloadOf('Deployment', 'd', tensorflowTemplate('0.5'))).result;
      // kubectl apply sends the changed limit again; the webhook's annotations and resources stay in the object.
      const containers = at(first, ['spec', 'template', 'spec']).containers as Json[];
      const resources = containers[0]!.resources as { limits: Json; requests: Json };
      resources.limits['nvidia.com/gpu'] = '250m';
      resources.requests['nvidia.com/gpu'] = '250m';
      const { response, result } = admitAndApply(first, config(), { operation: 'UPDATE', oldObject: first });
      expect(response.warnings).toEqual([
        'annotation gpushare.io/gpu-milli: "500" replaced by "250" from nvidia.com/gpu of container "tensorflow"',
      ]);
      const template = at(result, ['spec', 'template']);
      expect(((template.spec as Json).containers as Json[])[0]!.resources).toEqual({
        limits: { cpu: '2', 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '250' },
        requests: { cpu: '1', 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '250' },
      });
      expect(((template.metadata as Json).annotations as Json)['gpushare.io/gpu-milli']).toBe('250');
    },
  );

  it('a whole-GPU request that becomes a share drops gpushare.io/gpu', () => {
    const first = admitAndApply(workloadOf('Deployment', 'd', tensorflowTemplate('2'))).result;
    const resources = (at(first, ['spec', 'template', 'spec']).containers as Json[])[0]!.resources as {
      limits: Json;
      requests: Json;
    };
    resources.limits['nvidia.com/gpu'] = '0.5';
    resources.requests['nvidia.com/gpu'] = '0.5';
    const { result } = admitAndApply(first, config(), { operation: 'UPDATE', oldObject: first });
    expect((at(result, ['spec', 'template', 'spec']).containers as Json[])[0]!.resources).toEqual({
      limits: { cpu: '2', 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
      requests: { cpu: '1', 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' },
    });
  });

  it('a limit alone is enough (requests default from limits)', () => {
    const pod = workloadOf('Pod', 'p', {
      spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
    });
    const { result } = admitAndApply(pod);
    const resources = { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu': '1', 'gpushare.io/gpu-milli': '1000' };
    expect(((result.spec as Json).containers as Json[])[0]!.resources).toEqual({
      limits: resources,
      requests: resources,
    });
  });

  it(
    'an init container may be the one that gets the GPUs; NVIDIA_VISIBLE_DEVICES goes from init containers ' + 'too',
    () => {
      const template = {
        spec: {
          initContainers: [
            {
              name: 'warmup',
              image: 'w',
              resources: { limits: { 'nvidia.com/gpu': '0.5' } },
              env: [{ name: 'NVIDIA_VISIBLE_DEVICES', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            },
          ],
          containers: [{ name: 'main', image: 'm', env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: '1' }] }],
        },
      };
      const { response, result } = admitAndApply(workloadOf('Job', 'j', template));
      expect(response.warnings).toEqual([
        'container "main": removed NVIDIA_VISIBLE_DEVICES="1": gpushare assigns GPUs',
        'container "warmup": removed NVIDIA_VISIBLE_DEVICES (valueFrom): gpushare assigns GPUs',
      ]);
      const spec = at(result, ['spec', 'template', 'spec']);
      const resources = { 'gpushare.io/gpu-slot': '1', 'gpushare.io/gpu-milli': '500' };
      expect(spec.initContainers).toEqual([
        { name: 'warmup', image: 'w', resources: { limits: resources, requests: resources } },
      ]);
      expect(spec.containers).toEqual([{ name: 'main', image: 'm' }]);
      expect((at(result, ['spec', 'template', 'metadata']).annotations as Json)['gpushare.io/container']).toBe(
        'warmup',
      );
    },
  );

  it('sets schedulerName when configured; replacing a custom one says so', () => {
    const plain = admitAndApply(
      workloadOf('Pod', 'p', tensorflowTemplate('0.5')),
      config({ schedulerName: 'gpushare' }),
    );
    expect((plain.result.spec as Json).schedulerName).toBe('gpushare');
    expect(plain.response.warnings).toEqual([ENV_WARNING_TF, ENV_WARNING_SIDECAR]);
    const defaulted = workloadOf('Pod', 'p', tensorflowTemplate('0.5'));
    (defaulted.spec as Json).schedulerName = 'default-scheduler';
    expect(admitAndApply(defaulted, config({ schedulerName: 'gpushare' })).response.warnings).toEqual([
      ENV_WARNING_TF,
      ENV_WARNING_SIDECAR,
    ]);
    const custom = workloadOf('Pod', 'p', tensorflowTemplate('0.5'));
    (custom.spec as Json).schedulerName = 'volcano';
    const replaced = admitAndApply(custom, config({ schedulerName: 'gpushare' }));
    expect((replaced.result.spec as Json).schedulerName).toBe('gpushare');
    expect(replaced.response.warnings).toContain(
      'spec.schedulerName: "volcano" replaced by "gpushare": gpushare\'s scheduler places GPU pods',
    );
    const unset = admitAndApply(workloadOf('Pod', 'p', tensorflowTemplate('0.5')));
    expect((unset.result.spec as Json).schedulerName).toBeUndefined();
  });

  it('removes assignment annotations from a new pod and warns about unknown gpushare annotations', () => {
    const metadata = {
      annotations: {
        'gpushare.io/assignment': '{"schema":"v1"}',
        'gpushare.io/assigned-gpus': 'GPU-1',
        'gpushare.io/gpu-mem': '10',
      },
    };
    const { response, result } = admitAndApply(workloadOf('Pod', 'p', tensorflowTemplate('0.5', metadata)));
    expect(response.warnings).toEqual([
      "metadata.annotations[gpushare.io/assignment]: removed: only gpushare's extender assigns GPUs, " +
        'when it binds the pod',
      "metadata.annotations[gpushare.io/assigned-gpus]: removed: only gpushare's extender assigns GPUs, " +
        'when it binds the pod',
      'metadata.annotations[gpushare.io/gpu-mem]: not a gpushare annotation, ignored ' +
        '(docs/kubernetes/annotations.md lists them)',
      ENV_WARNING_TF,
      ENV_WARNING_SIDECAR,
    ]);
    const annotations = (result.metadata as Json).annotations as Json;
    expect(annotations['gpushare.io/assignment']).toBeUndefined();
    expect(annotations['gpushare.io/assigned-gpus']).toBeUndefined();
    expect(annotations['gpushare.io/gpu-mem']).toBe('10');
  });
});

describe('admit: objects without a GPU request pass unchanged', () => {
  const noGpu = {
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx',
          resources: { limits: { cpu: '1' } },
          env: [{ name: 'NVIDIA_VISIBLE_DEVICES', value: 'all' }],
        },
      ],
    },
  };
  for (const kind of KINDS) {
    it(`${kind} without nvidia.com/gpu: allowed, no patch, no warning`, () => {
      expect(respond(reviewOf(workloadOf(kind, 'web', noGpu, { selector: false })))).toEqual({
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        allowed: true,
      });
    });
  }
  const cases: [string, Json][] = [
    [
      'nvidia.com/gpu: 0',
      workloadOf('Pod', 'p', {
        spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '0' } } }] },
      }),
    ],
    [
      'a ConfigMap',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { NVIDIA_VISIBLE_DEVICES: '0' } },
    ],
    [
      "a pod with another prefix's annotations",
      workloadOf('Pod', 'p', { metadata: { annotations: { 'example.com/gpu': '1' } }, spec: noGpu.spec }),
    ],
  ];
  for (const [name, object] of cases) {
    it(`${name}: allowed, no patch`, () => {
      expect(respond(reviewOf(object))).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
    });
  }
  it('DELETE and subresources pass', () => {
    const pod = workloadOf('Pod', 'p', tensorflowTemplate('1.5'));
    expect(respond(reviewOf(pod, { operation: 'DELETE', oldObject: pod }))).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: true,
    });
    expect(respond(reviewOf(pod, { subResource: 'status' }))).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: true,
    });
  });
});

describe('admit: rejections name the container and the field', () => {
  const container = (resources: Json, name = 'tensorflow'): Json => ({ name, image: 'i', resources });
  const cases: { name: string; kind: KindName; template: Json; code: number; message: string; cfg?: WebhookConfig }[] =
    [
      {
        name: '1.5 GPUs',
        kind: 'Deployment',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'nvidia.com/gpu': '1.5' } })] } },
        message:
          'container "tensorflow": spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: ' +
          '1.5 GPUs: a request above 1 GPU must be a whole number of GPUs',
      },
      {
        name: '1500m GPUs in a CronJob',
        kind: 'CronJob',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'nvidia.com/gpu': '1500m' } })] } },
        message:
          'container "tensorflow": spec.jobTemplate.spec.template.spec.containers[0].resources.' +
          'limits[nvidia.com/gpu]: 1500m GPUs: a request above 1 GPU must be a whole number of GPUs',
      },
      {
        name: 'a share finer than 1m',
        kind: 'Pod',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'nvidia.com/gpu': '0.0005' } })] } },
        message:
          'container "tensorflow": spec.containers[0].resources.limits[nvidia.com/gpu]: 0.0005 GPUs: a ' +
          'share of a GPU must be a whole number of milli-GPU (1m to 999m)',
      },
      {
        name: 'not a quantity',
        kind: 'Pod',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'nvidia.com/gpu': 'half' } })] } },
        message:
          'container "tensorflow": spec.containers[0].resources.limits[nvidia.com/gpu]: half: not a ' +
          'quantity of GPUs (write a share such as 0.5 or 500m, or a whole number such as 1 or 2)',
      },
      {
        name: 'more than 64 GPUs',
        kind: 'Pod',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'nvidia.com/gpu': '65' } })] } },
        message:
          'container "tensorflow": spec.containers[0].resources.limits[nvidia.com/gpu]: 65 GPUs: more ' +
          'than 64, the most one pod may ask for',
      },
      {
        name: 'requests different from limits',
        kind: 'StatefulSet',
        code: 422,
        template: {
          spec: {
            containers: [container({ limits: { 'nvidia.com/gpu': '1' }, requests: { 'nvidia.com/gpu': '500m' } })],
          },
        },
        message:
          'container "tensorflow": spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]: ' +
          '500m must equal the limit 1; GPUs cannot be overcommitted',
      },
      {
        name: 'a request without a limit',
        kind: 'DaemonSet',
        code: 422,
        template: { spec: { containers: [container({ requests: { 'nvidia.com/gpu': '1' } })] } },
        message:
          'container "tensorflow": spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: ' +
          'required: set the limit equal to the request (1); GPUs cannot be overcommitted',
      },
      {
        name: 'two containers with GPUs',
        kind: 'Job',
        code: 422,
        template: {
          spec: {
            initContainers: [container({ limits: { 'nvidia.com/gpu': '1' } }, 'prep')],
            containers: [container({ limits: { 'nvidia.com/gpu': '0.5' } })],
          },
        },
        message:
          'containers "tensorflow" (spec.template.spec.containers[0]) and "prep" ' +
          '(spec.template.spec.initContainers[0]) both request nvidia.com/gpu: gpushare gives the GPUs ' +
          'of a pod to one container; request them in one container only',
      },
      {
        name: 'more memory than the largest GPU',
        kind: 'ReplicaSet',
        code: 422,
        template: {
          metadata: { annotations: { 'gpushare.io/gpu-memory-mib': '90000' } },
          spec: { containers: [container({ limits: { 'nvidia.com/gpu': '0.5' } })] },
        },
        message:
          'container "tensorflow": spec.template.metadata.annotations[gpushare.io/gpu-memory-mib]: 90000 ' +
          'MiB per GPU: more than the largest GPU of any gpushare node (81920 MiB)',
      },
      {
        name: 'a malformed mode annotation',
        kind: 'Pod',
        code: 422,
        template: {
          metadata: { annotations: { 'gpushare.io/mode': 'fast' } },
          spec: { containers: [container({ limits: { 'nvidia.com/gpu': '0.5' } })] },
        },
        message:
          'container "tensorflow": metadata.annotations: annotation gpushare.io/mode must be one of ' +
          'auto, exclusive, mig, mps, timeslice, got "fast" (gpushare.io/gpu-count 1 and ' +
          'gpushare.io/gpu-milli 500 come from spec.containers[0].resources.limits[nvidia.com/gpu])',
      },
      {
        name: 'mode exclusive with half a GPU',
        kind: 'Deployment',
        code: 422,
        template: {
          metadata: { annotations: { 'gpushare.io/mode': 'exclusive' } },
          spec: { containers: [container({ limits: { 'nvidia.com/gpu': '0.5' } })] },
        },
        message:
          'container "tensorflow": spec.template.metadata.annotations: annotation gpushare.io/gpu-milli ' +
          'must be 1000 (or absent) for mode exclusive, got 500 (gpushare.io/gpu-count 1 and ' +
          'gpushare.io/gpu-milli 500 come from spec.template.spec.containers[0].resources.limits[nvidia.com/gpu])',
      },
      {
        name: 'annotations naming a missing container',
        kind: 'Pod',
        code: 422,
        template: {
          metadata: { annotations: { 'gpushare.io/gpu-count': '1', 'gpushare.io/container': 'trainer' } },
          spec: { containers: [{ name: 'web', image: 'i' }] },
        },
        message:
          'metadata.annotations[gpushare.io/container]: names no container of the pod: "trainer" (containers: web)',
      },
      {
        name: 'request annotations without a GPU request',
        kind: 'Deployment',
        code: 422,
        template: {
          metadata: { annotations: { 'gpushare.io/mode': 'mps' } },
          spec: { containers: [{ name: 'web', image: 'i' }] },
        },
        message:
          'spec.template.metadata.annotations[gpushare.io/mode]: gpushare annotations without a GPU ' +
          "request: add nvidia.com/gpu to one container's limits, or annotation gpushare.io/gpu-count",
      },
      {
        name: 'gpushare resources without a GPU request',
        kind: 'Pod',
        code: 422,
        template: { spec: { containers: [container({ limits: { 'gpushare.io/gpu-milli': '500' } }, 'web')] } },
        message:
          'container "web": spec.containers[0].resources.limits[gpushare.io/gpu-milli]: gpushare ' +
          'resources without a GPU request: request nvidia.com/gpu instead (the webhook writes these)',
      },
      {
        name: 'gpushare resources in the container without the GPUs',
        kind: 'Pod',
        code: 422,
        template: {
          spec: {
            containers: [
              container({ limits: { 'nvidia.com/gpu': '1' } }),
              container({ limits: { 'gpushare.io/gpu-slot': '1' } }, 'side'),
            ],
          },
        },
        message:
          'container "side": spec.containers[1].resources.limits[gpushare.io/gpu-slot]: only the ' +
          'container that gets the GPUs ("tensorflow") may request gpushare resources',
      },
      {
        name: 'a container without a name',
        kind: 'Pod',
        code: 400,
        template: { spec: { containers: [{ image: 'i' }] } },
        message: 'spec.containers[0].name: required: every container needs a name',
      },
    ];
  for (const c of cases) {
    it(`${c.name}: ${c.code}`, () => {
      const response = respond(reviewOf(workloadOf(c.kind, 'w', c.template)), c.cfg);
      expect(response.allowed).toBe(false);
      expect(response.patch).toBeUndefined();
      expect(response.status).toEqual({
        status: 'Failure',
        code: c.code,
        reason: c.code === 422 ? 'Invalid' : 'BadRequest',
        message: c.message,
      });
    });
  }

  it('the memory bound is not checked when unknown, nor when an UPDATE keeps the memory it was admitted with', () => {
    const template = {
      metadata: { annotations: { 'gpushare.io/gpu-memory-mib': '90000' } },
      spec: { containers: [container({ limits: { 'nvidia.com/gpu': '0.5' } })] },
    };
    const deployment = workloadOf('Deployment', 'd', template);
    const admitted = admitAndApply(deployment, config({ maxGpuMemoryMiB: null }));
    expect(admitted.response.allowed).toBe(true);
    const update = admitAndApply(admitted.result, config({ maxGpuMemoryMiB: 40960 }), {
      operation: 'UPDATE',
      oldObject: admitted.result,
    });
    expect(update.response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
  });
});

describe('admit: selector fix-up', () => {
  for (const kind of ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'] as const) {
    it(`${kind} without selector and template labels gets both`, () => {
      const { response, result } = admitAndApply(
        workloadOf(kind, 'half', tensorflowTemplate('0.5'), { selector: false }),
      );
      expect(response.warnings).toContain(
        'spec.selector and spec.template.metadata.labels were missing: added gpushare.io/workload=half to both',
      );
      expect((result.spec as Json).selector).toEqual({ matchLabels: { 'gpushare.io/workload': 'half' } });
      expect(at(result, ['spec', 'template', 'metadata']).labels).toEqual({ 'gpushare.io/workload': 'half' });
    });
  }
  it('nothing is added when only one of them is missing, nor to a Job, nor without a GPU', () => {
    const onlyLabels = workloadOf('Deployment', 'half', tensorflowTemplate('0.5', { labels: { app: 'x' } }), {
      selector: false,
    });
    expect((admitAndApply(onlyLabels).result.spec as Json).selector).toBeUndefined();
    const onlySelector = workloadOf('Deployment', 'half', tensorflowTemplate('0.5'), { selector: false });
    (onlySelector.spec as Json).selector = { matchLabels: { app: 'x' } };
    const fixed = admitAndApply(onlySelector);
    expect(at(fixed.result, ['spec', 'template', 'metadata']).labels).toBeUndefined();
    expect(fixed.response.warnings).toEqual([ENV_WARNING_TF, ENV_WARNING_SIDECAR]);
    const job = admitAndApply(workloadOf('Job', 'half', tensorflowTemplate('0.5')));
    expect((job.result.spec as Json).selector).toBeUndefined();
    expect(at(job.result, ['spec', 'template', 'metadata']).labels).toBeUndefined();
  });
  it('a name that is no label value: a warning, nothing added', () => {
    const name = 'a'.repeat(64);
    const { response, result } = admitAndApply(
      workloadOf('Deployment', name, tensorflowTemplate('0.5'), { selector: false }),
    );
    expect(response.warnings).toContain(
      `spec.selector and spec.template.metadata.labels are missing; not added: the Deployment's name "` +
        `${name}" is no label value (at most 63 characters)`,
    );
    expect((result.spec as Json).selector).toBeUndefined();
  });
});

describe('admit: UPDATE of a Pod only re-validates', () => {
  const created = (): Json =>
    admitAndApply(workloadOf('Pod', 'p', tensorflowTemplate('0.5')), config({ schedulerName: 'gpushare' })).result;

  it('an unchanged request passes (the extender adding the assignment), without a patch', () => {
    const old = created();
    const next = structuredClone(old);
    ((next.metadata as Json).annotations as Json)['gpushare.io/assignment'] = '{"schema":"v1"}';
    expect(
      respond(
        reviewOf(next, {
          operation: 'UPDATE',
          oldObject: old,
          username: 'system:serviceaccount:gpushare-system:gpushare-extender',
        }),
        config({ schedulerName: 'other' }),
      ),
    ).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
  });
  it('only the extender may set, change or remove an assignment', () => {
    const old = created();
    const assigned = structuredClone(old);
    ((assigned.metadata as Json).annotations as Json)['gpushare.io/assignment'] = '{"schema":"v1"}';
    const forged = structuredClone(assigned);
    ((forged.metadata as Json).annotations as Json)['gpushare.io/assignment'] = '{"schema":"v1","forged":true}';
    const removed = structuredClone(old);
    for (const [before, after] of [
      [old, assigned],
      [assigned, forged],
      [assigned, removed],
    ] as const) {
      const response = respond(reviewOf(after, { operation: 'UPDATE', oldObject: before, username: 'alice' }));
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toBe(
        'metadata.annotations[gpushare.io/assignment]: only the gpushare extender ' +
          "(system:serviceaccount:gpushare-system:gpushare-extender) may set, change or remove a pod's " +
          'assignment; alice may not',
      );
    }
    expect(
      respond(
        reviewOf(removed, {
          operation: 'UPDATE',
          oldObject: assigned,
          username: 'system:serviceaccount:gpushare-system:gpushare-extender',
        }),
      ).allowed,
    ).toBe(true);
  });
  it('nvidia.com/gpu sent again (kubectl apply) is rewritten back to the stored form', () => {
    const old = created();
    const next = structuredClone(old);
    const resources = ((next.spec as Json).containers as Json[])[0]!.resources as { limits: Json; requests: Json };
    resources.limits['nvidia.com/gpu'] = '0.5';
    resources.requests['nvidia.com/gpu'] = '0.5';
    const { response, result } = admitAndApply(next, config(), { operation: 'UPDATE', oldObject: old });
    expect(response.allowed).toBe(true);
    expect(result).toEqual(old);
  });
  it('a changed request is refused', () => {
    const old = created();
    const next = structuredClone(old);
    ((next.metadata as Json).annotations as Json)['gpushare.io/gpu-milli'] = '1000';
    const response = respond(reviewOf(next, { operation: 'UPDATE', oldObject: old }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'metadata.annotations: the gpushare request of a pod cannot change after it is created (was ' +
        'gpushare.io/container=tensorflow,gpushare.io/gpu-count=1,gpushare.io/gpu-milli=500,' +
        'gpushare.io/mode=auto,gpushare.io/schema=v1; now ' +
        'gpushare.io/container=tensorflow,gpushare.io/gpu-count=1,gpushare.io/gpu-milli=1000,' +
        'gpushare.io/mode=auto,gpushare.io/schema=v1)',
    );
  });
  it('a pod admitted before the webhook passes untouched; gpushare annotations cannot be added to it', () => {
    const old = workloadOf('Pod', 'p', {
      spec: {
        containers: [
          { name: 'a', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } },
          { name: 'b', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } },
        ],
      },
    });
    const relabelled = structuredClone(old);
    (relabelled.metadata as Json).labels = { tier: 'gold' };
    expect(respond(reviewOf(relabelled, { operation: 'UPDATE', oldObject: old }))).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: true,
    });
    const annotated = structuredClone(old);
    (annotated.metadata as Json).annotations = { 'gpushare.io/gpu-count': '1' };
    const response = respond(reviewOf(annotated, { operation: 'UPDATE', oldObject: old }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'metadata.annotations: gpushare annotations cannot be added to an existing pod (its resources are ' +
        'immutable): create a new pod',
    );
  });
});

describe('admit: bad AdmissionReview input is HTTP 400 naming the field', () => {
  const good = reviewOf(workloadOf('Pod', 'p', tensorflowTemplate('0.5')));
  const cases: [string, unknown, string][] = [
    [
      'no uid',
      { ...good, request: { ...(good.request as Json), uid: undefined } },
      'AdmissionReview request.uid: Required',
    ],
    [
      'v1beta1',
      { ...good, apiVersion: 'admission.k8s.io/v1beta1' },
      'AdmissionReview apiVersion: Invalid literal value, expected "admission.k8s.io/v1" (this webhook ' +
        'speaks admission.k8s.io/v1 only)',
    ],
    [
      'not a review',
      { kind: 'Pod' },
      'AdmissionReview apiVersion: Invalid literal value, expected "admission.k8s.io/v1" (this webhook ' +
        'speaks admission.k8s.io/v1 only)',
    ],
    [
      'a bad operation',
      { ...good, request: { ...(good.request as Json), operation: 'PATCH' } },
      "AdmissionReview request.operation: Invalid enum value. Expected 'CREATE' | 'UPDATE' | 'DELETE' | " +
        "'CONNECT', received 'PATCH'",
    ],
    [
      'CREATE without object',
      { ...good, request: { ...(good.request as Json), object: null } },
      'AdmissionReview request.object: required for operation CREATE',
    ],
    [
      'UPDATE without oldObject',
      { ...good, request: { ...(good.request as Json), operation: 'UPDATE' } },
      'AdmissionReview request.oldObject: required for operation UPDATE',
    ],
    ['an array', [], 'AdmissionReview (body): Expected object, received array'],
  ];
  for (const [name, body, message] of cases) {
    it(name, () => {
      expect(admit(body, config())).toEqual({ httpStatus: 400, message });
    });
  }
});
