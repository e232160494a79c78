/**
 * The one fix-up the webhook makes beyond GPUs, for the most common fractional manifest (a
 * Deployment with neither `spec.selector` nor template labels, which apps/v1 validation refuses with
 * `spec.selector: Required value`): on an apps/v1 workload of a GPU request that has neither, it adds
 * the template label and `spec.selector.matchLabels` `gpushare.io/workload: <metadata.name>`, and
 * says so in a warning. When only one of the two is missing it does nothing: the API server's own
 * message names what to add. Jobs need no fix-up (the API server generates their selector).
 */
import { WORKLOAD_LABELS } from '../schema/names.js';
import { childObject, ensureChildObject, isJsonObject, objectAtPath, type JsonObject } from './json-object.js';
import type { WorkloadKind } from './workload-kinds.js';

/** A label value: at most 63 characters, alphanumerics with `-`, `_`, `.` inside (apimachinery validation). */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

function isEmptyMap(value: unknown): boolean {
  return value === undefined || value === null || (isJsonObject(value) && Object.keys(value).length === 0);
}

/**
 * Adds the selector and template label to `object` (in place) when both are missing.
 * @returns the warnings: what was added, or why nothing could be (a name that is no label value)
 */
export function fixUpSelector(object: JsonObject, kind: WorkloadKind): string[] {
  if (!kind.requiresSelector) return [];
  const spec = childObject(object, 'spec');
  const template = objectAtPath(object, kind.templatePath);
  if (spec === undefined || template === undefined) return [];
  const templateMetadata = childObject(template, 'metadata');
  if (!isEmptyMap(spec.selector) || !isEmptyMap(templateMetadata?.labels)) return [];
  const name = childObject(object, 'metadata')?.name;
  if (typeof name !== 'string' || !LABEL_VALUE.test(name)) {
    return [
      `spec.selector and spec.template.metadata.labels are missing; not added: the ${kind.kind}'s name ` +
        `${JSON.stringify(name ?? '')} is no label value (at most 63 characters)`,
    ];
  }
  ensureChildObject(ensureChildObject(template, 'metadata'), 'labels')[WORKLOAD_LABELS.workload] = name;
  ensureChildObject(ensureChildObject(spec, 'selector'), 'matchLabels')[WORKLOAD_LABELS.workload] = name;
  return [
    `spec.selector and spec.template.metadata.labels were missing: added ${WORKLOAD_LABELS.workload}=${name} to both`,
  ];
}
