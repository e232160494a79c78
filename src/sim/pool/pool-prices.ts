/**
 * The hourly prices of the pool replay's nodes (docs/simulator.md "Pool replay", Prices): one public
 * price list, Google Cloud Compute Engine on-demand prices in us-central1, as Google's Cloud Billing
 * catalog listed them on 2025-03-06. A node costs its GPUs at the list's GPU-hour prices; with host
 * prices, also its host's vCPUs and memory at the list's rates, as Compute Engine bills a VM with
 * GPUs attached. By default hosts are not priced: the trace's hosts have 8 to 52 cores per GPU, and
 * at cloud rates the CPU-poorest host would make the cheapest GPU, so that host shapes, not GPU
 * sharing, would decide what the autoscaler buys.
 */

/** The price list, for the outputs. */
export const PRICE_LIST = {
  name: 'Google Cloud Compute Engine, on-demand, us-central1',
  date: '2025-03-06',
  sources: [
    'https://cloud.google.com/compute/gpus-pricing',
    'https://cloud.google.com/compute/vm-instance-pricing',
    'https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator (pricing.yml, generated 2025-03-06)',
    'https://github.com/skypilot-org/skypilot-catalog (catalogs/v8/gcp/vms.csv)',
  ],
  currency: 'USD',
} as const;

/** vCPU-hour (N1 and A2 machine types, us-central1). */
export const VCPU_PER_HOUR = 0.031611;
/** GiB-hour of host memory (N1 and A2 machine types, us-central1; Google's "GB" is 2^30 bytes). */
export const MEMORY_GIB_PER_HOUR = 0.004237;

/**
 * GPU-hour by model (catalog names of src/core/model/gpu-models.ts). T4, P100 and V100 are the
 * list's GPUs attached to N1 VMs. A100-80GB is the GPU part of an `a2-ultragpu-1g` ($5.06880 an hour
 * for 1 GPU, 12 vCPUs, 170 GiB and 375 GB of bundled local SSD at $0.08 per GB-month: 5.06880 −
 * 12 × 0.031611 − 170 × 0.004237 − 375 × 0.08 / 730 = 3.92808). The list has one V100 (16 GB): the
 * trace's V100M32 gets its price. G1, G2 and G3 are models the trace does not disclose: they are
 * priced as a V100, the datacenter training GPU of the trace's disclosed models (G2 and G3 nodes are
 * 8-GPU servers like the V100M32 ones); their GPU-hours do not depend on it, their cost does.
 */
export const GPU_PER_HOUR: Readonly<Record<string, number>> = {
  T4: 0.35,
  P100: 1.46,
  V100M16: 2.48,
  V100M32: 2.48,
  'A100-80GB': 3.92808,
  G1: 2.48,
  G2: 2.48,
  G3: 2.48,
};

/** The undisclosed trace codes, priced by assumption (see GPU_PER_HOUR). */
export const ASSUMED_PRICE_MODELS: readonly string[] = ['G1', 'G2', 'G3'];

/**
 * A node's hourly price: its GPUs at the list's GPU-hour price, and with `hostPrices` its vCPUs
 * (1000 milli-cores each) and host memory at the list's rates.
 * @throws RangeError for a GPU model the list does not price
 */
export function nodePricePerHour(
  gpuModel: string,
  gpuCount: number,
  cpuMilli: number,
  memoryMiB: number,
  hostPrices: boolean,
): number {
  const gpu = gpuCount === 0 ? 0 : GPU_PER_HOUR[gpuModel];
  if (gpu === undefined)
    throw new RangeError(`no price for GPU model ${gpuModel}; priced: ${Object.keys(GPU_PER_HOUR).join(', ')}`);
  const host = hostPrices ? (cpuMilli / 1000) * VCPU_PER_HOUR + (memoryMiB / 1024) * MEMORY_GIB_PER_HOUR : 0;
  return gpuCount * gpu + host;
}
