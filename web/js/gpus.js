/**
 * GPUs as bars. A GPU not in MIG mode is one horizontal bar of its 1000 milli-GPU, split into one
 * segment per job (width = the job's gpuMilli / 1000, colour per tenant, labelled with the job and
 * tenant), a segment for other tenants' jobs (a tenant sees their total, unnamed) and the free
 * part; a thin bar below shows memory. A MIG GPU is drawn as its slice layout: each GPU instance
 * at its start slice with its profile name, idle instances hatched and labelled "idle".
 */
import { enforcementText, formatMiB, h, jobLabel, replaceChildren, tenantColor } from './dom.js';

/**
 * "GPU 0 A100-80GB: job 3 train-a (alice) 400 milli-GPU, 20 GiB": the accessible name of a segment.
 * @param {any} gpu @param {any} job
 */
export function segmentLabel(gpu, job) {
  if (job.migProfile) return `GPU ${gpu.index} ${gpu.model}: ${jobLabel(job)} MIG ${job.migProfile}, slices ${job.migStart}–${job.migStart + job.migSlices - 1}, ${formatMiB(job.gpuMemoryMiB)}`;
  return `GPU ${gpu.index} ${gpu.model}: ${jobLabel(job)} ${job.gpuMilli} milli-GPU, ${formatMiB(job.gpuMemoryMiB)}`;
}

/**
 * Renders every GPU into `container`.
 * @param {HTMLElement} container
 * @param {any[]} gpus GpuView[] from the API
 * @param {(jobId: number, opener: HTMLElement) => void} onOpenJob
 */
export function renderGpus(container, gpus, onOpenJob) {
  if (gpus.length === 0) {
    replaceChildren(container, h('p', { text: 'No GPUs found.' }));
    return;
  }
  replaceChildren(container, gpus.map((gpu) => renderGpu(gpu, onOpenJob)));
}

/** @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob */
function renderGpu(gpu, onOpenJob) {
  const titleId = `gpu-${gpu.index}-title`;
  return h('article', { class: `gpu${gpu.schedulable ? '' : ' unschedulable'}`, 'aria-labelledby': titleId, 'data-gpu': gpu.index },
    h('h3', { id: titleId }, `GPU ${gpu.index} · ${gpu.model}`, gpu.simulated ? h('span', { class: 'tag', text: 'simulated' }) : null),
    renderFacts(gpu),
    gpu.migEnabled && gpu.migMemorySlices ? renderMigLayout(gpu, onOpenJob) : renderComputeBar(gpu, onOpenJob),
    renderMemoryBar(gpu),
  );
}

/** Model, mode, what enforces its shares (memory, compute), health, cordon and measured use as a line of facts. @param {any} gpu */
function renderFacts(gpu) {
  const health = !gpu.healthy ? `unhealthy${gpu.healthReason ? `: ${gpu.healthReason}` : ''}` : gpu.cordoned ? 'cordoned' : 'healthy';
  const facts = [
    ['mode', gpu.mode ?? 'idle'],
    ['enforced', enforcementText(gpu.enforcement)],
    ['state', health],
    ['allocated', gpu.migEnabled ? `${gpu.allocatedGpuMilli} milli-GPU (MIG slices)` : `${gpu.allocatedGpuMilli} of 1000 milli-GPU`],
    ['utilization', gpu.utilizationGpuPct === null ? 'not measured' : `${gpu.utilizationGpuPct}%${gpu.simulated ? ' (simulated)' : ''}`],
    ['memory used', gpu.memoryUsedMiB === null ? 'not measured' : `${formatMiB(gpu.memoryUsedMiB)} of ${formatMiB(gpu.gpuMemoryMiB)}`],
  ];
  return h('dl', { class: 'facts' }, facts.map(([k, v]) => h('div', { class: k === 'state' && health !== 'healthy' ? 'warn' : null }, h('dt', { text: k }), h('dd', { text: v }))));
}

/** @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob */
function renderComputeBar(gpu, onOpenJob) {
  const ownMilli = gpu.jobs.reduce((sum, j) => sum + j.gpuMilli, 0);
  const othersMilli = Math.max(0, gpu.allocatedGpuMilli - ownMilli);
  const scale = Math.max(1000, ownMilli + othersMilli);
  const segments = gpu.jobs.map((job) => {
    const label = segmentLabel(gpu, job);
    const seg = h('button', { type: 'button', class: 'seg', 'aria-label': label, title: label, 'data-job': job.id, style: { width: `${(job.gpuMilli / scale) * 100}%`, backgroundColor: tenantColor(job.tenant) } },
      h('span', { class: 'seg-text', 'aria-hidden': 'true' }, `#${job.id} ${job.name} (${job.tenant}) ${job.gpuMilli}`));
    seg.addEventListener('click', () => onOpenJob(job.id, seg));
    return seg;
  });
  if (othersMilli > 0) {
    segments.push(h('div', { class: 'seg others', role: 'img', 'aria-label': `GPU ${gpu.index} ${gpu.model}: other tenants ${othersMilli} milli-GPU`, style: { width: `${(othersMilli / scale) * 100}%` } },
      h('span', { class: 'seg-text', 'aria-hidden': 'true', text: `other tenants ${othersMilli}` })));
  }
  const free = Math.max(0, 1000 - gpu.allocatedGpuMilli);
  if (free > 0) {
    segments.push(h('div', { class: 'seg free', role: 'img', 'aria-label': `GPU ${gpu.index} ${gpu.model}: free ${free} milli-GPU`, style: { width: `${(free / scale) * 100}%` } },
      h('span', { class: 'seg-text', 'aria-hidden': 'true', text: `free ${free}` })));
  }
  return h('div', { class: 'bar compute', role: 'group', 'aria-label': `GPU ${gpu.index} compute: ${gpu.allocatedGpuMilli} of 1000 milli-GPU allocated` }, segments);
}

/** @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob */
function renderMigLayout(gpu, onOpenJob) {
  const slices = gpu.migMemorySlices;
  const place = (start, size) => ({ gridColumn: `${start + 1} / span ${size}` });
  const cells = [];
  for (let i = 0; i < slices; i += 1) cells.push(h('div', { class: 'mig-slot', 'aria-hidden': 'true', style: place(i, 1) }, h('span', { text: String(i) })));
  const instances = gpu.jobs.filter((j) => j.migStart !== null).map((job) => {
    const label = segmentLabel(gpu, job);
    const gi = h('button', { type: 'button', class: 'mig-gi', 'aria-label': label, title: label, 'data-job': job.id, style: { ...place(job.migStart, job.migSlices), backgroundColor: tenantColor(job.tenant) } },
      h('span', { class: 'seg-text', 'aria-hidden': 'true' }, h('strong', { text: job.migProfile }), ` #${job.id} ${job.name} (${job.tenant})`));
    gi.addEventListener('click', () => onOpenJob(job.id, gi));
    return gi;
  });
  const idle = gpu.migIdleInstances.map((gi) => h('div', { class: 'mig-gi idle', role: 'img', 'aria-label': `GPU ${gpu.index} ${gpu.model}: idle MIG instance ${gi.profileName}, slices ${gi.start}–${gi.start + gi.size - 1}`, style: place(gi.start, gi.size) },
    h('span', { class: 'seg-text', 'aria-hidden': 'true' }, h('strong', { text: gi.profileName }), ' idle')));
  const used = gpu.jobs.reduce((n, j) => n + (j.migSlices ?? 0), 0) + gpu.migIdleInstances.reduce((n, gi) => n + gi.size, 0);
  return h('div', { class: 'mig-layout', role: 'group', 'aria-label': `GPU ${gpu.index} MIG layout: ${slices} memory slices, ${gpu.jobs.length} instance(s) in use, ${gpu.migIdleInstances.length} idle, ${slices - used} slice(s) free`, style: { gridTemplateColumns: `repeat(${slices}, 1fr)` } }, cells, instances, idle);
}

/** Memory: allocated per job (thin bar) and the measured use when known. @param {any} gpu */
function renderMemoryBar(gpu) {
  const total = gpu.gpuMemoryMiB;
  const ownMiB = gpu.jobs.reduce((sum, j) => sum + j.gpuMemoryMiB, 0);
  const othersMiB = Math.max(0, gpu.allocatedGpuMemoryMiB - ownMiB);
  const parts = gpu.jobs.map((job) => h('div', { class: 'mem-seg', style: { width: `${(job.gpuMemoryMiB / total) * 100}%`, backgroundColor: tenantColor(job.tenant) } }));
  if (othersMiB > 0) parts.push(h('div', { class: 'mem-seg others', style: { width: `${(othersMiB / total) * 100}%` } }));
  const used = gpu.memoryUsedMiB;
  const marker = used === null ? null : h('div', { class: 'mem-used', style: { left: `${Math.min(100, (used / total) * 100)}%` } });
  const label = `GPU ${gpu.index} memory: ${formatMiB(gpu.allocatedGpuMemoryMiB)} of ${formatMiB(total)} allocated, ${formatMiB(gpu.freeGpuMemoryMiB)} free${used === null ? '' : `, ${formatMiB(used)} used (measured)`}`;
  return h('div', { class: 'bar memory', role: 'img', 'aria-label': label, title: label }, parts, marker);
}

/**
 * The tenant colour legend (names in text, so colour is not the only cue).
 * @param {HTMLElement} container @param {string[]} tenants
 */
export function renderLegend(container, tenants) {
  replaceChildren(container, tenants.map((t) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch', 'aria-hidden': 'true', style: { backgroundColor: tenantColor(t) } }), t)));
}
