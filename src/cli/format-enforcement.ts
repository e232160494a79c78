/**
 * Enforcement labels for people (docs/sharing-modes.md "What is enforced"), shared by `gpushare
 * show`, `gpushare gpus` and `gpushare status`: `hardware (MIG)`, `exclusive`, `per process (MPS)`
 * (the MPS limit caps each CUDA process of the job, not the job as a whole), `time-slice`, `not
 * enforced` (accounted by the scheduler only).
 */
import type { ShareEnforcementView } from '../contract/api.js';

const LABELS: Readonly<Record<ShareEnforcementView['gpuMemory'], string>> = {
  hardware: 'hardware (MIG)',
  exclusive: 'exclusive',
  'driver-per-process': 'per process (MPS)',
  'time-slice': 'time-slice',
  'not-enforced': 'not enforced',
};

/** One level as people read it, e.g. `not enforced`. */
export function enforcementLabel(level: ShareEnforcementView['gpuMemory']): string {
  return LABELS[level];
}

/** `memory not enforced, compute time-slice`. */
export function formatShareEnforcement(enforcement: ShareEnforcementView): string {
  return `memory ${enforcementLabel(enforcement.gpuMemory)}, compute ${enforcementLabel(enforcement.compute)}`;
}
