import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUTOSCALE_POLICY } from '../core/index.js';
import { parseAutoscalerConfig } from './autoscaler-config.js';

const TEMPLATE = `  - name: a100x2
    gpuModel: A100-80GB
    gpuCount: 2
    pricePerHour: 4.1
    maxCount: 4
    bootSeconds: 240
`;

/** A file: one template, then `rest`. */
const file = (rest: string, template = TEMPLATE): string => `templates:\n${template}${rest}`;

/** The message parseAutoscalerConfig throws for `text`. */
function errorOf(text: string): string {
  try {
    parseAutoscalerConfig(text, 'autoscaler.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('parseAutoscalerConfig', () => {
  it('reads YAML and fills the defaults: template host capacity, counts, policy, placement policy, Machines', () => {
    const config = parseAutoscalerConfig(
      file(`policy:
  scaleDownDelaySeconds: 120
provider:
  kind: kubernetes
  scaleTarget:
    apiVersion: cluster.x-k8s.io/v1beta1
    resource: machinedeployments
    kind: MachineDeployment
    namespace: capi
  targets: { a100x2: gpu-a100 }
`),
      'autoscaler.yaml',
    );
    expect(config.templates).toEqual([
      {
        name: 'a100x2',
        gpuModel: 'A100-80GB',
        gpuCount: 2,
        migCapable: false,
        hostCpuMilli: 2 ** 40,
        hostMemoryMiB: 2 ** 40,
        pricePerHour: 4.1,
        minCount: 0,
        maxCount: 4,
        bootSeconds: 240,
      },
    ]);
    expect(config.policy).toEqual({ ...DEFAULT_AUTOSCALE_POLICY, scaleDownDelaySeconds: 120 });
    expect(config.placementPolicy).toBe('default');
    expect(config.provider).toEqual({
      kind: 'kubernetes',
      targets: {
        a100x2: {
          apiVersion: 'cluster.x-k8s.io/v1beta1',
          resource: 'machinedeployments',
          kind: 'MachineDeployment',
          namespace: 'capi',
          name: 'gpu-a100',
        },
      },
      machines: { apiVersion: 'cluster.x-k8s.io/v1beta1', resource: 'machines', namespace: 'capi' },
    });
  });

  it('reads JSON, and a command provider with its defaults', () => {
    const json = JSON.stringify({
      templates: [{ name: 't4', gpuModel: 'T4', gpuCount: 1, pricePerHour: 0.5, maxCount: 2, bootSeconds: 60 }],
      provider: { kind: 'command', command: '/usr/local/bin/scale-pool', args: ['--group', 'gpu'] },
    });
    expect(parseAutoscalerConfig(json, 'autoscaler.json').provider).toEqual({
      kind: 'command',
      command: '/usr/local/bin/scale-pool',
      args: ['--group', 'gpu'],
      timeoutSeconds: 300,
      maxOutputBytes: 16_384,
    });
  });

  it('reads the config of deploy/kubernetes/autoscaler.yaml', () => {
    const path = new URL('../../deploy/kubernetes/autoscaler.yaml', import.meta.url);
    const [configMap] = parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as Record<string, unknown>);
    const text = (configMap!.data as Record<string, string>)['autoscaler.yaml']!;
    const config = parseAutoscalerConfig(text, 'deploy/kubernetes/autoscaler.yaml');
    expect(config.templates.map((t) => [t.name, t.gpuCount])).toEqual([['a100x8', 8]]);
    expect(config.provider.kind).toBe('kubernetes');
  });

  it.each([
    [
      'an unknown provider kind',
      file('provider: { kind: aws }\n'),
      "provider.kind: must be one of command, kubernetes, simulated, got 'aws'",
    ],
    [
      'a GPU model not in the catalog',
      file('provider: { kind: simulated }\n', TEMPLATE.replace('A100-80GB', 'A1000')),
      'templates.0.gpuModel: must be one of G1, G2, G3, P100, T4, V100M16, V100M32, A10, L4, A30-24GB, A100-40GB, ' +
        'A100-80GB, H100-80GB, H200-141GB (or an alias)',
    ],
    ['a misspelt key', file('provider: { kind: simulated }\npolcy: {}\n'), "(top level): unknown key(s) 'polcy'"],
    [
      'a policy value out of range',
      file('policy: { scaleDownUtilization: 1.5 }\nprovider: { kind: simulated }\n'),
      'policy.scaleDownUtilization: Number must be less than or equal to 1',
    ],
    [
      'an unknown placement policy',
      file('placementPolicy: tetris\nprovider: { kind: simulated }\n'),
      'placementPolicy: must be one of ',
    ],
    [
      'a relative command',
      file('provider: { kind: command, command: scale.sh }\n'),
      'provider.command: must be an absolute path',
    ],
    [
      'maxCount under minCount',
      file('provider: { kind: simulated }\n', `${TEMPLATE}    minCount: 5\n`),
      'templates.0.maxCount: must be at least minCount (5), got 4',
    ],
    [
      'MIG on a GPU without it (the core check)',
      file('provider: { kind: simulated }\n', TEMPLATE.replace('A100-80GB', 'T4') + '    migCapable: true\n'),
      "templates: node template 'a100x2': migCapable must be false (T4 has no MIG)",
    ],
    [
      'a template without a scale target',
      file('provider: { kind: kubernetes, targets: {} }\n'),
      "provider.targets: must name the object of every template, 'a100x2' has none",
    ],
    [
      'a scale target of no template',
      file('provider: { kind: kubernetes, targets: { a100x2: md-a, h100x8: md-h } }\n'),
      'provider.targets.h100x8: names no template: must be one of a100x2',
    ],
    ['no template', 'templates: []\nprovider: { kind: simulated }\n', 'templates: must name at least one template'],
    ['a missing provider', file(''), 'provider: Required'],
    ['text that is not YAML', 'templates: [\n', 'not valid YAML or JSON'],
  ])('refuses %s, naming the field and what it allows', (_, text, message) => {
    const error = errorOf(text);
    expect(error.startsWith('autoscaler.yaml: ')).toBe(true);
    expect(error).toContain(message);
  });
});
