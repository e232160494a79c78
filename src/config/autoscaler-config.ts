/**
 * The config file of `gpushare autoscaler` (docs/autoscaler.md, "Providers and `gpushare
 * autoscaler`"): the node templates, the policy and the provider, in YAML or JSON (a JSON file is
 * YAML too). Validated with zod; unknown keys are errors, so a typo is caught. Every error names the
 * field by its path (`templates.0.gpuModel`, `provider.kind`) and what it allows. Resolved into the
 * core's `NodeTemplate`s and `AutoscalePolicy` (defaults filled in) and a provider setting.
 */
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import {
  checkTemplates,
  DEFAULT_AUTOSCALE_POLICY,
  findGpuModel,
  GPU_MODELS,
  POLICY_NAMES,
  type AutoscalePolicy,
  type NodeTemplate,
} from '../core/index.js';

/** Host capacity of a template that names none: the kube-scheduler checks CPU and memory, not gpushare. */
const UNLIMITED_HOST = 2 ** 40;
/** What a Kubernetes object name may be (a DNS subdomain). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const PROVIDER_KINDS = ['command', 'kubernetes', 'simulated'] as const;

/** A value given, for a message: a string in single quotes, anything else as JSON. */
function given(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value ?? null);
}

/** An object with a `kind`, maybe. */
type Kinded = { kind?: unknown } | null;

const objectName = z.string().regex(OBJECT_NAME, 'must be a Kubernetes object name (lower case, digits, - and .)');
const apiVersion = z
  .string()
  .regex(/^([a-z0-9.-]+\/)?v[0-9a-z]+$/, 'must be group/version (cluster.x-k8s.io/v1beta1) or v1');

const templateSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a label value: lower case, digits and -'),
    gpuModel: z.string().refine((m) => findGpuModel(m) !== undefined, {
      message: `must be one of ${GPU_MODELS.map((m) => m.name).join(', ')} (or an alias)`,
    }),
    gpuCount: z.number().int().min(0).max(64),
    migCapable: z.boolean().default(false),
    hostCpuMilli: z.number().int().min(0).default(UNLIMITED_HOST),
    hostMemoryMiB: z.number().int().min(0).default(UNLIMITED_HOST),
    pricePerHour: z.number().min(0),
    minCount: z.number().int().min(0).default(0),
    maxCount: z.number().int().min(0),
    bootSeconds: z.number().min(0).max(86_400),
  })
  .strict();

const policySchema = z
  .object({
    scaleUpQueueLength: z.number().int().min(1),
    scaleUpWaitSeconds: z.number().min(0),
    scaleUpMaxWaitSeconds: z.number().min(0).nullable(),
    scaleUpCooldownSeconds: z.number().min(0),
    scaleDownDelaySeconds: z.number().min(0),
    scaleDownUtilization: z.number().min(0).max(1),
    maxNodes: z.number().int().min(0),
    maxCostPerHour: z.number().min(0).nullable(),
    bootTimeoutSeconds: z.number().min(0),
    backoffSeconds: z.number().min(0),
    maxBackoffSeconds: z.number().min(0),
  })
  .partial()
  .strict();

const apiResourceSchema = z.object({
  apiVersion,
  resource: z.string().regex(/^[a-z0-9-]+$/, 'must be a plural resource name'),
});

const providerSchema = z.discriminatedUnion(
  'kind',
  [
    z
      .object({
        kind: z.literal('command'),
        /** Absolute path of the program. */
        command: z.string().startsWith('/', 'must be an absolute path'),
        args: z.array(z.string()).default([]),
        timeoutSeconds: z.number().positive().max(3600).default(300),
        maxOutputBytes: z
          .number()
          .int()
          .min(256)
          .max(1 << 20)
          .default(16_384),
      })
      .strict(),
    z
      .object({
        kind: z.literal('kubernetes'),
        scaleTarget: apiResourceSchema
          .extend({
            kind: z.string().regex(/^[A-Z][A-Za-z0-9]*$/, 'must be a kind (MachineDeployment)'),
            namespace: objectName,
          })
          .strict()
          .default({
            apiVersion: 'cluster.x-k8s.io/v1beta1',
            resource: 'machinedeployments',
            kind: 'MachineDeployment',
            namespace: 'default',
          }),
        /** Template name → the name of the object that scales it. */
        targets: z.record(objectName),
        /** Where the Machines are (default: Cluster API's, in the scale target's namespace); false: no marking. */
        machines: z
          .union([z.literal(false), apiResourceSchema.extend({ namespace: objectName.optional() }).strict()])
          .default({ apiVersion: 'cluster.x-k8s.io/v1beta1', resource: 'machines' }),
      })
      .strict(),
    z.object({ kind: z.literal('simulated') }).strict(),
  ],
  {
    errorMap: (issue, ctx) =>
      issue.code === 'invalid_union_discriminator'
        ? {
            message: `must be one of ${PROVIDER_KINDS.join(', ')}, got ${given((ctx.data as Kinded)?.kind)}`,
          }
        : { message: ctx.defaultError },
  },
);

const fileSchema = z
  .object({
    templates: z.array(templateSchema).min(1, 'must name at least one template'),
    policy: policySchema.default({}),
    /** The placement policy (the extender's `--policy`). */
    placementPolicy: z
      .string()
      .refine((p) => POLICY_NAMES.includes(p), { message: `must be one of ${POLICY_NAMES.join(', ')}` })
      .default('default'),
    provider: providerSchema,
  })
  .strict();

/** A kind of namespaced object the kubernetes provider reads or writes. */
export interface ApiResourceConfig {
  readonly apiVersion: string;
  readonly resource: string;
  readonly namespace: string;
}

/** The provider a config names. */
export type ProviderConfig =
  | {
      readonly kind: 'command';
      readonly command: string;
      readonly args: readonly string[];
      readonly timeoutSeconds: number;
      readonly maxOutputBytes: number;
    }
  | {
      readonly kind: 'kubernetes';
      /** By template name: the object whose `/scale` it sets. */
      readonly targets: Readonly<Record<string, ApiResourceConfig & { readonly kind: string; readonly name: string }>>;
      /** Where the Machines are; null: nodes are not marked. */
      readonly machines: ApiResourceConfig | null;
    }
  | { readonly kind: 'simulated' };

/** A resolved config. */
export interface AutoscalerConfig {
  readonly templates: readonly NodeTemplate[];
  readonly policy: AutoscalePolicy;
  readonly placementPolicy: string;
  readonly provider: ProviderConfig;
}

/** The message of one issue: its path and what is wrong (the value given, for a value not allowed). */
function issueLine(issue: z.ZodIssue): string {
  const path = issue.path.join('.') || '(top level)';
  if (issue.code === 'unrecognized_keys')
    return `${path}: unknown key(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  return `${path}: ${issue.message}`;
}

/**
 * Parses and checks a config file's text. @throws Error naming `fileName`, each bad field by its path
 *   and what it allows
 */
export function parseAutoscalerConfig(text: string, fileName: string): AutoscalerConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new Error(`${fileName}: not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new Error(`${fileName}: ${[...new Set(parsed.error.issues.map(issueLine))].join('; ')}`);
  const file = parsed.data;
  const templates: NodeTemplate[] = file.templates.map((t) => ({ ...t }));
  const names = templates.map((t) => t.name);
  const bad = (field: string, message: string): never => {
    throw new Error(`${fileName}: ${field}: ${message}`);
  };
  templates.forEach((t, i) => {
    if (names.indexOf(t.name) !== i) bad(`templates.${i}.name`, `must be unique, '${t.name}' is used twice`);
    if (t.maxCount < t.minCount)
      bad(`templates.${i}.maxCount`, `must be at least minCount (${t.minCount}), got ${t.maxCount}`);
  });
  try {
    checkTemplates(templates);
  } catch (err) {
    bad('templates', (err as Error).message);
  }
  const policy: AutoscalePolicy = { ...DEFAULT_AUTOSCALE_POLICY, ...file.policy };
  if (policy.maxBackoffSeconds < policy.backoffSeconds)
    bad('policy.maxBackoffSeconds', `must be at least backoffSeconds (${policy.backoffSeconds})`);
  return {
    templates,
    policy,
    placementPolicy: file.placementPolicy,
    provider: resolveProvider(file.provider, names, bad),
  };
}

/** The provider setting, every template given its target. */
function resolveProvider(
  provider: z.infer<typeof providerSchema>,
  templates: readonly string[],
  bad: (field: string, message: string) => never,
): ProviderConfig {
  if (provider.kind !== 'kubernetes') return provider;
  for (const name of Object.keys(provider.targets))
    if (!templates.includes(name))
      bad(`provider.targets.${name}`, `names no template: must be one of ${templates.join(', ')}`);
  const targets: Record<string, ApiResourceConfig & { kind: string; name: string }> = {};
  for (const t of templates) {
    const name = provider.targets[t];
    if (name === undefined) bad('provider.targets', `must name the object of every template, '${t}' has none`);
    targets[t] = { ...provider.scaleTarget, name: name! };
  }
  const machines =
    provider.machines === false
      ? null
      : { ...provider.machines, namespace: provider.machines.namespace ?? provider.scaleTarget.namespace };
  return { kind: 'kubernetes', targets, machines };
}
