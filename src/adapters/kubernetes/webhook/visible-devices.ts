/**
 * Removes `NVIDIA_VISIBLE_DEVICES` from containers' `env`: with the NVIDIA container runtime that
 * variable picks GPUs by itself (`"0"`, `all`), past any accounting; on a gpushare pod the node
 * agent names the GPUs from the pod's assignment. Each removal is reported as an admission warning
 * (kubectl prints `Warning: …`). Variables that come through `envFrom` are not visible here.
 */
import { VISIBLE_DEVICES_ENV } from '../schema/names.js';
import type { ContainerRef } from './pod-containers.js';
import { isJsonObject } from './json-object.js';

/** Longest value quoted in a warning (warnings over 120 characters may be cut by clients). */
const MAX_QUOTED = 32;

function describe(entry: unknown): string {
  if (!isJsonObject(entry)) return VISIBLE_DEVICES_ENV;
  if (typeof entry.value === 'string') {
    const value = entry.value.length > MAX_QUOTED ? `${entry.value.slice(0, MAX_QUOTED)}…` : entry.value;
    return `${VISIBLE_DEVICES_ENV}=${JSON.stringify(value)}`;
  }
  return entry.valueFrom !== undefined ? `${VISIBLE_DEVICES_ENV} (valueFrom)` : VISIBLE_DEVICES_ENV;
}

/**
 * Drops every `NVIDIA_VISIBLE_DEVICES` entry from each container's `env` (the `env` key goes when
 * nothing is left).
 * @returns one warning per removed entry: `container "tensorflow": removed NVIDIA_VISIBLE_DEVICES="0": gpushare assigns
 * GPUs`
 */
export function removeVisibleDevices(containers: readonly ContainerRef[]): string[] {
  const warnings: string[] = [];
  for (const ref of containers) {
    const env = ref.container.env;
    if (!Array.isArray(env)) continue;
    const kept = env.filter((entry) => !(isJsonObject(entry) && entry.name === VISIBLE_DEVICES_ENV));
    if (kept.length === env.length) continue;
    for (const entry of env) {
      if (isJsonObject(entry) && entry.name === VISIBLE_DEVICES_ENV)
        warnings.push(`container "${ref.name}": removed ${describe(entry)}: gpushare assigns GPUs`);
    }
    if (kept.length === 0) delete ref.container.env;
    else ref.container.env = kept;
  }
  return warnings;
}
