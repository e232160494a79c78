/**
 * The webhook's rewrite of one pod template (a Pod's own metadata and spec, or a workload's
 * `spec.template`): the container that asks for `nvidia.com/gpu` gets gpushare's integer resources
 * instead (schema/pod-resources.ts), the pod gets the request annotations (schema/pod-request.ts,
 * keeping the mode, isolation and memory the user wrote), `NVIDIA_VISIBLE_DEVICES` goes from every
 * container, and `schedulerName` is set when configured. Applied to its own output it changes
 * nothing (the API server may call a webhook twice: reinvocationPolicy IfNeeded).
 */
import { parsePodRequest, requestAnnotations, type PodGpuRequest } from '../schema/pod-request.js';
import { containerResourcesFor } from '../schema/pod-resources.js';
import { GPUSHARE_PREFIX, NVIDIA_GPU_RESOURCE, POD_ANNOTATIONS } from '../schema/names.js';
import { childObject, ensureChildObject, isJsonObject, stringEntries, type JsonObject } from './json-object.js';
import {
  containerGpu,
  containersOf,
  gpushareResourceFields,
  namesNvidiaGpu,
  setGpushareResources,
  type ContainerRef,
} from './pod-containers.js';
import { removeVisibleDevices } from './visible-devices.js';

/** What the rewrite of a template depends on. */
export interface TemplateRules {
  /** `spec.schedulerName` of GPU pods (the kube-scheduler profile with gpushare's extender); null: left as it is. */
  readonly schedulerName: string | null;
  /** The largest GPU memory of any gpushare node, MiB; null: unknown, no check. */
  readonly maxGpuMemoryMiB: number | null;
  /** The most GPUs one pod may ask for. */
  readonly maxGpuCount: number;
  /** Remove assignment annotations (not on an UPDATE of a Pod: the extender writes them there). */
  readonly stripAssignment: boolean;
}

/** The outcome for one template. */
export type TemplateOutcome =
  /** No GPU request and no gpushare annotations: nothing changed. */
  | { readonly kind: 'untouched' }
  /** Refused: 400 for a malformed object, 422 for an impossible request; each message names the container and field. */
  | { readonly kind: 'rejected'; readonly code: 400 | 422; readonly messages: readonly string[] }
  /** Rewritten in place; `request` is null when only stray assignment annotations were removed. */
  | { readonly kind: 'mutated'; readonly request: PodGpuRequest | null; readonly warnings: readonly string[] };

/** Annotations that state a request (the webhook writes them; a user may). */
const REQUEST_KEYS: readonly string[] = [
  POD_ANNOTATIONS.schema,
  POD_ANNOTATIONS.gpuCount,
  POD_ANNOTATIONS.gpuMilli,
  POD_ANNOTATIONS.gpuMemoryMiB,
  POD_ANNOTATIONS.mode,
  POD_ANNOTATIONS.isolation,
  POD_ANNOTATIONS.container,
];
/** Annotations only the extender writes, on a pod, when it binds it. */
const ASSIGNMENT_KEYS: readonly string[] = [POD_ANNOTATIONS.assignment, POD_ANNOTATIONS.assignedGpus];
const KNOWN_KEYS = new Set<string>(Object.values(POD_ANNOTATIONS));

const rejected = (code: 400 | 422, messages: readonly string[]): TemplateOutcome => ({
  kind: 'rejected',
  code,
  messages,
});

/**
 * Rewrites `template` in place (pass a copy) as the module comment says.
 * @param templatePath where the template sits in the object (`['spec', 'template']`; [] for a Pod), for messages
 */
export function mutatePodTemplate(
  template: JsonObject,
  templatePath: readonly string[],
  rules: TemplateRules,
): TemplateOutcome {
  const prefix = templatePath.length > 0 ? `${templatePath.join('.')}.` : '';
  const metadata = template.metadata;
  if (metadata !== undefined && metadata !== null && !isJsonObject(metadata))
    return rejected(400, [`${prefix}metadata: must be an object`]);
  const annotationsValue = isJsonObject(metadata) ? metadata.annotations : undefined;
  if (annotationsValue !== undefined && annotationsValue !== null && !isJsonObject(annotationsValue))
    return rejected(400, [`${prefix}metadata.annotations: must be a map of strings`]);
  const spec = childObject(template, 'spec');
  if (spec === undefined) return rejected(400, [`${prefix}spec: required: the pod spec`]);
  const containers = containersOf(spec, `${prefix}spec`);
  if (typeof containers === 'string') return rejected(400, [containers]);

  const annotations = stringEntries(isJsonObject(annotationsValue) ? annotationsValue : undefined);
  const gpushareKeys = Object.keys(annotations).filter((k) => k.startsWith(GPUSHARE_PREFIX));
  const asked = containers.filter(namesNvidiaGpu).map((ref) => ({ ref, gpu: containerGpu(ref, rules.maxGpuCount) }));
  const invalid = asked.flatMap(({ gpu }) => (gpu.kind === 'invalid' ? [gpu.message] : []));
  if (invalid.length > 0) return rejected(422, invalid);
  const gpuContainers = asked.flatMap(({ ref, gpu }) =>
    gpu.kind === 'gpus' ? [{ ref, gpuCount: gpu.gpuCount, gpuMilli: gpu.gpuMilli }] : [],
  );
  if (gpuContainers.length > 1) {
    const [a, b] = gpuContainers.map((g) => g.ref) as [ContainerRef, ContainerRef];
    return rejected(422, [
      `containers "${a.name}" (${a.path}) and "${b.name}" (${b.path}) both request ${NVIDIA_GPU_RESOURCE}` +
        `: gpushare gives the GPUs of a pod to one container; request them in one container only`,
    ]);
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const source = gpuContainers[0] ?? null;
  let merged = annotations;
  if (source !== null) {
    const fromResource: Record<string, string> = {
      [POD_ANNOTATIONS.gpuCount]: String(source.gpuCount),
      [POD_ANNOTATIONS.gpuMilli]: String(source.gpuMilli),
      [POD_ANNOTATIONS.container]: source.ref.name,
    };
    for (const [key, value] of Object.entries(fromResource)) {
      const written = annotations[key];
      if (written !== undefined && written !== value)
        warnings.push(
          `annotation ${key}: ${JSON.stringify(written)} replaced by ${JSON.stringify(value)} from ` +
            `${NVIDIA_GPU_RESOURCE} of container "${source.ref.name}"`,
        );
    }
    merged = { ...annotations, ...fromResource };
  }

  const parsed = parsePodRequest(merged, rules.maxGpuCount);
  if (parsed.kind === 'invalid') {
    const origin =
      source === null
        ? ''
        : ` (${POD_ANNOTATIONS.gpuCount} ${source.gpuCount} and ${POD_ANNOTATIONS.gpuMilli} ` +
          `${source.gpuMilli} come from ${source.ref.path}.resources.limits[${NVIDIA_GPU_RESOURCE}])`;
    const who = source === null ? '' : `container "${source.ref.name}": `;
    return rejected(422, [`${who}${prefix}metadata.annotations: ${parsed.message}${origin}`]);
  }
  if (parsed.kind === 'none') {
    const requestKeys = gpushareKeys.filter((k) => REQUEST_KEYS.includes(k));
    if (requestKeys.length > 0) {
      problems.push(
        `${prefix}metadata.annotations[${requestKeys[0]}]: gpushare annotations without a GPU request: ` +
          `add ${NVIDIA_GPU_RESOURCE} to one container's limits, or annotation ${POD_ANNOTATIONS.gpuCount}`,
      );
    }
    for (const ref of containers) {
      for (const field of gpushareResourceFields(ref))
        problems.push(
          `container "${ref.name}": ${field}: gpushare resources without a GPU request: request ` +
            `${NVIDIA_GPU_RESOURCE} instead (the webhook writes these)`,
        );
    }
    if (problems.length > 0) return rejected(422, problems);
    const stripped = rules.stripAssignment ? stripAssignment(template, annotations, prefix) : [];
    return stripped.length > 0 ? { kind: 'mutated', request: null, warnings: stripped } : { kind: 'untouched' };
  }

  const request = parsed.request;
  const target = containers.find((c) => c.name === request.container);
  if (target === undefined) {
    return rejected(422, [
      `${prefix}metadata.annotations[${POD_ANNOTATIONS.container}]: names no container of the pod: ` +
        `${JSON.stringify(request.container)} (containers: ${containers.map((c) => c.name).join(', ')})`,
    ]);
  }
  const memory = request.gpu.gpuMemoryMiB;
  if (memory !== null && rules.maxGpuMemoryMiB !== null && memory > rules.maxGpuMemoryMiB) {
    problems.push(
      `container "${target.name}": ${prefix}metadata.annotations[${POD_ANNOTATIONS.gpuMemoryMiB}]: ` +
        `${memory} MiB per GPU: more than the largest GPU of any gpushare node (${rules.maxGpuMemoryMiB} ` +
        `MiB)`,
    );
  }
  for (const ref of containers) {
    if (ref === target) continue;
    for (const field of gpushareResourceFields(ref))
      problems.push(
        `container "${ref.name}": ${field}: only the container that gets the GPUs ("${target.name}") may ` +
          `request gpushare resources`,
      );
  }
  if (problems.length > 0) return rejected(422, problems);

  setGpushareResources(target, containerResourcesFor(request.gpu));
  const annotationMap = ensureChildObject(ensureChildObject(template, 'metadata'), 'annotations');
  Object.assign(annotationMap, requestAnnotations(request));
  if (rules.stripAssignment) warnings.push(...stripAssignment(template, annotations, prefix));
  for (const key of gpushareKeys) {
    if (!KNOWN_KEYS.has(key))
      warnings.push(
        `${prefix}metadata.annotations[${key}]: not a gpushare annotation, ignored ` +
          `(docs/kubernetes/annotations.md lists them)`,
      );
  }
  warnings.push(...removeVisibleDevices(containers));
  if (rules.schedulerName !== null && spec.schedulerName !== rules.schedulerName) {
    const before = spec.schedulerName;
    if (typeof before === 'string' && before !== '' && before !== 'default-scheduler') {
      warnings.push(
        `${prefix}spec.schedulerName: ${JSON.stringify(before)} replaced by ` +
          `${JSON.stringify(rules.schedulerName)}: gpushare's scheduler places GPU pods`,
      );
    }
    spec.schedulerName = rules.schedulerName;
  }
  return { kind: 'mutated', request, warnings };
}

/** Removes assignment annotations a user copied into a new pod or a template; one warning per key. */
function stripAssignment(
  template: JsonObject,
  annotations: Readonly<Record<string, string>>,
  prefix: string,
): string[] {
  const present = ASSIGNMENT_KEYS.filter((k) => annotations[k] !== undefined);
  const map = childObject(childObject(template, 'metadata') ?? {}, 'annotations');
  for (const key of present) delete map?.[key];
  return present.map(
    (k) => `${prefix}metadata.annotations[${k}]: removed: only gpushare's extender assigns GPUs, when it binds the pod`,
  );
}
