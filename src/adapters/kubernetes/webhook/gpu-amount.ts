/**
 * Reads a container's `nvidia.com/gpu` quantity as a gpushare request: a value below 1 is a share of
 * one GPU (`0.5`, `500m` → 1 GPU × 500 milli-GPU), a whole number n ≥ 1 is n whole GPUs (n × 1000
 * milli-GPU); anything else (`1.5`, `1500m`) cannot be placed and is refused. A YAML number arrives
 * in the AdmissionReview as a string quantity (`500m`) from the API server, or as a JSON number from
 * other callers: both are read (schema/quantity.ts).
 */
import { GPU_MILLI_PER_GPU } from '../../../core/index.js';
import { quantityValue } from '../schema/quantity.js';

/** The GPUs a quantity asks for: none (0), a count and milli-GPU per GPU, or why it cannot be placed. */
export type GpuAmount =
  | { readonly kind: 'none' }
  | { readonly kind: 'gpus'; readonly gpuCount: number; readonly gpuMilli: number }
  | { readonly kind: 'invalid'; readonly problem: string };

/** Tolerance for binary floating point in decimal quantities (`1001m` reads as 1.0010000000000001). */
const EPSILON = 1e-6;

/**
 * The GPUs `value` (a quantity string or a number) asks for.
 * @param maxGpuCount the most GPUs one pod may ask for (parsePodRequest's bound)
 * @returns `invalid` with a message that starts with the value as written (`1.5 GPUs: …`)
 */
export function gpuAmountOf(value: unknown, maxGpuCount: number): GpuAmount {
  const units = quantityValue(value);
  const written = typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  if (units === null)
    return {
      kind: 'invalid',
      problem:
        `${written}: not a quantity of GPUs (write a share such as 0.5 or 500m, or a whole number such as 1 ` + `or 2)`,
    };
  if (units === 0) return { kind: 'none' };
  if (units < 1) {
    const milli = units * GPU_MILLI_PER_GPU;
    const rounded = Math.round(milli);
    if (Math.abs(milli - rounded) > EPSILON || rounded < 1) {
      return {
        kind: 'invalid',
        problem: `${written} GPUs: a share of a GPU must be a whole number of milli-GPU (1m to 999m)`,
      };
    }
    return { kind: 'gpus', gpuCount: 1, gpuMilli: rounded };
  }
  const count = Math.round(units);
  if (Math.abs(units - count) > EPSILON)
    return { kind: 'invalid', problem: `${written} GPUs: a request above 1 GPU must be a whole number of GPUs` };
  if (count > maxGpuCount)
    return { kind: 'invalid', problem: `${written} GPUs: more than ${maxGpuCount}, the most one pod may ask for` };
  return { kind: 'gpus', gpuCount: count, gpuMilli: GPU_MILLI_PER_GPU };
}
