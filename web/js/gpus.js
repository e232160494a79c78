/**
 * GPUs as compact tiles in a responsive grid (many GPUs stay readable: 64 fit a 1280-pixel-wide
 * page without horizontal scrolling). A GPU not in MIG mode is one horizontal bar of its 1000 milli-GPU, split into one
 * segment per job (width = the job's gpuMilli / 1000, colour per tenant, labelled with the job and
 * tenant), a segment for other tenants' jobs (a tenant sees their total, unnamed) and the free
 * part; a thin bar below shows memory. A MIG GPU is drawn as its slice layout: each GPU instance
 * at its start slice with its profile name, idle instances hatched and labelled "idle". A tile's
 * details (enforcement, measured use, its jobs) show on hover or focus.
 */
import { enforcementText, formatMiB, h, jobLabel, replaceChildren, tenantColor } from './dom.js';

/**
 * "GPU 0 A100-80GB: job 3 train-a (alice) 400 milli-GPU, 20 GiB": the accessible name of a segment.
 * @param {any} gpu @param {any} job
 */
export function segmentLabel(gpu, job) {
  if (job.migProfile)
    return (
      `GPU ${gpu.index} ${gpu.model}: ${jobLabel(job)} MIG ${job.migProfile}, slices ${job.migStart}–` +
      `${job.migStart + job.migSlices - 1}, ${formatMiB(job.gpuMemoryMiB)}`
    );
  return `GPU ${gpu.index} ${gpu.model}: ${jobLabel(job)} ${job.gpuMilli} milli-GPU, ${formatMiB(job.gpuMemoryMiB)}`;
}

/** The most GPUs drawn as wide tiles; more are drawn as compact tiles (8 to a row at 1280 px). */
const ROOMY_GPUS = 8;

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
  // Up to ROOMY_GPUS GPUs get wide tiles (readable segment labels); more get compact ones.
  container.dataset.density = gpus.length <= ROOMY_GPUS ? 'roomy' : 'compact';
  replaceChildren(
    container,
    gpus.map((gpu) => renderGpu(gpu, onOpenJob)),
  );
}

/**
 * The sharing mode of a GPU in one word: `MIG` (MIG mode), `MPS`, `time-slice`, `exclusive` (the
 * mode of its jobs), or `free` (no job).
 * @param {any} gpu
 */
function modeText(gpu) {
  if (gpu.migEnabled) return 'MIG';
  if (gpu.mode === null || gpu.mode === undefined) return 'free';
  return { mps: 'MPS', timeslice: 'time-slice', exclusive: 'exclusive', mig: 'MIG' }[gpu.mode] ?? String(gpu.mode);
}

/** "healthy", "cordoned" or "unhealthy: reason". @param {any} gpu */
function healthText(gpu) {
  return !gpu.healthy
    ? `unhealthy${gpu.healthReason ? `: ${gpu.healthReason}` : ''}`
    : gpu.cordoned
      ? 'cordoned'
      : 'healthy';
}

/**
 * One GPU as a compact tile: index, model, mode and health badges, the compute bar (or MIG slice
 * layout) and the memory bar, allocated milli-GPU and memory in one line; the other facts in a
 * details box shown while the tile is hovered or holds focus (and named by aria-describedby).
 * @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob
 */
function renderGpu(gpu, onOpenJob) {
  const titleId = `gpu-${gpu.index}-title`;
  const detailsId = `gpu-${gpu.index}-details`;
  const health = healthText(gpu);
  const mode = modeText(gpu);
  const gib = (/** @type {number} */ mib) => {
    const g = mib / 1024;
    return String(Number.isInteger(g) ? g : g.toFixed(1));
  };
  return h(
    'article',
    {
      class: `gpu gpu-tile${gpu.schedulable ? '' : ' unschedulable'}`,
      'aria-labelledby': titleId,
      'aria-describedby': detailsId,
      'data-gpu': gpu.index,
      tabindex: '0',
    },
    h(
      'div',
      { class: 'gpu-head' },
      h(
        'h3',
        { id: titleId, title: `GPU ${gpu.index} ${gpu.model}` },
        `GPU ${gpu.index}`,
        h('span', { class: 'gpu-model', text: ` ${gpu.model}` }),
      ),
      h('span', {
        class: `badge mode-${mode.replace(/[^a-zA-Z-]/g, '').toLowerCase()}`,
        'data-mode': mode,
        text: mode,
      }),
      health === 'healthy'
        ? null
        : h('span', { class: 'badge warn', title: health, text: gpu.healthy ? 'cordoned' : 'unhealthy' }),
    ),
    gpu.migEnabled && gpu.migMemorySlices ? renderMigLayout(gpu, onOpenJob) : renderComputeBar(gpu, onOpenJob),
    renderMemoryBar(gpu),
    h(
      'p',
      { class: 'gpu-summary', title: 'allocated milli-GPU of 1000, allocated GPU memory of the total' },
      h('span', { text: `${gpu.allocatedGpuMilli}/1000 m` }),
      h('span', { text: `${gib(gpu.allocatedGpuMemoryMiB)}/${gib(gpu.gpuMemoryMiB)} GiB` }),
    ),
    renderFacts(gpu, detailsId, mode, health),
  );
}

/**
 * Every fact of a GPU (model, mode, what enforces its shares, health and cordon, allocation,
 * measured use): the tile's details box.
 * @param {any} gpu @param {string} id @param {string} mode @param {string} health
 */
function renderFacts(gpu, id, mode, health) {
  const facts = [
    ['model', `${gpu.model}${gpu.simulated ? ' (simulated)' : ''}`],
    ['mode', mode],
    ['enforced', enforcementText(gpu.enforcement)],
    ['state', health],
    [
      'allocated',
      gpu.migEnabled ? `${gpu.allocatedGpuMilli} milli-GPU (MIG slices)` : `${gpu.allocatedGpuMilli} of 1000 milli-GPU`,
    ],
    ['memory allocated', `${formatMiB(gpu.allocatedGpuMemoryMiB)} of ${formatMiB(gpu.gpuMemoryMiB)}`],
    [
      'utilization',
      gpu.utilizationGpuPct === null
        ? 'not measured'
        : `${gpu.utilizationGpuPct}%${gpu.simulated ? ' (simulated)' : ''}`,
    ],
    [
      'memory used',
      gpu.memoryUsedMiB === null ? 'not measured' : `${formatMiB(gpu.memoryUsedMiB)} of ${formatMiB(gpu.gpuMemoryMiB)}`,
    ],
    ['jobs', gpu.jobs.length === 0 ? 'none' : gpu.jobs.map((j) => `#${j.id} ${j.name} (${j.tenant})`).join(', ')],
  ];
  return h(
    'dl',
    { class: 'facts gpu-details', id },
    facts.map(([k, v]) =>
      h(
        'div',
        { class: k === 'state' && health !== 'healthy' ? 'warn' : null },
        h('dt', { text: k }),
        h('dd', { text: v }),
      ),
    ),
  );
}

/** @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob */
function renderComputeBar(gpu, onOpenJob) {
  const ownMilli = gpu.jobs.reduce((sum, j) => sum + j.gpuMilli, 0);
  const othersMilli = Math.max(0, gpu.allocatedGpuMilli - ownMilli);
  const scale = Math.max(1000, ownMilli + othersMilli);
  const segments = gpu.jobs.map((job) => {
    const label = segmentLabel(gpu, job);
    const seg = h(
      'button',
      {
        type: 'button',
        class: 'seg',
        'aria-label': label,
        title: label,
        'data-job': job.id,
        style: { width: `${(job.gpuMilli / scale) * 100}%`, backgroundColor: tenantColor(job.tenant) },
      },
      h('span', { class: 'seg-text', 'aria-hidden': 'true' }, `#${job.id} ${job.name} (${job.tenant}) ${job.gpuMilli}`),
    );
    seg.addEventListener('click', () => onOpenJob(job.id, seg));
    return seg;
  });
  if (othersMilli > 0) {
    segments.push(
      h(
        'div',
        {
          class: 'seg others',
          role: 'img',
          'aria-label': `GPU ${gpu.index} ${gpu.model}: other tenants ${othersMilli} milli-GPU`,
          style: { width: `${(othersMilli / scale) * 100}%` },
        },
        h('span', { class: 'seg-text', 'aria-hidden': 'true', text: `other tenants ${othersMilli}` }),
      ),
    );
  }
  const free = Math.max(0, 1000 - gpu.allocatedGpuMilli);
  if (free > 0) {
    segments.push(
      h(
        'div',
        {
          class: 'seg free',
          role: 'img',
          'aria-label': `GPU ${gpu.index} ${gpu.model}: free ${free} milli-GPU`,
          style: { width: `${(free / scale) * 100}%` },
        },
        h('span', { class: 'seg-text', 'aria-hidden': 'true', text: `free ${free}` }),
      ),
    );
  }
  return h(
    'div',
    {
      class: 'bar compute',
      role: 'group',
      'aria-label': `GPU ${gpu.index} compute: ${gpu.allocatedGpuMilli} of 1000 milli-GPU allocated`,
    },
    segments,
  );
}

/** @param {any} gpu @param {(jobId: number, opener: HTMLElement) => void} onOpenJob */
function renderMigLayout(gpu, onOpenJob) {
  const slices = gpu.migMemorySlices;
  const place = (start, size) => ({ gridColumn: `${start + 1} / span ${size}` });
  const cells = [];
  for (let i = 0; i < slices; i += 1)
    cells.push(
      h('div', { class: 'mig-slot', 'aria-hidden': 'true', style: place(i, 1) }, h('span', { text: String(i) })),
    );
  const instances = gpu.jobs
    .filter((j) => j.migStart !== null)
    .map((job) => {
      const label = segmentLabel(gpu, job);
      const gi = h(
        'button',
        {
          type: 'button',
          class: 'mig-gi',
          'aria-label': label,
          title: label,
          'data-job': job.id,
          style: { ...place(job.migStart, job.migSlices), backgroundColor: tenantColor(job.tenant) },
        },
        h(
          'span',
          { class: 'seg-text', 'aria-hidden': 'true' },
          h('strong', { text: job.migProfile }),
          ` #${job.id} ${job.name} (${job.tenant})`,
        ),
      );
      gi.addEventListener('click', () => onOpenJob(job.id, gi));
      return gi;
    });
  const idle = gpu.migIdleInstances.map((gi) =>
    h(
      'div',
      {
        class: 'mig-gi idle',
        role: 'img',
        'aria-label':
          `GPU ${gpu.index} ${gpu.model}: idle MIG instance ${gi.profileName}, slices ${gi.start}–` +
          `${gi.start + gi.size - 1}`,
        style: place(gi.start, gi.size),
      },
      h('span', { class: 'seg-text', 'aria-hidden': 'true' }, h('strong', { text: gi.profileName }), ' idle'),
    ),
  );
  const used =
    gpu.jobs.reduce((n, j) => n + (j.migSlices ?? 0), 0) + gpu.migIdleInstances.reduce((n, gi) => n + gi.size, 0);
  return h(
    'div',
    {
      class: 'mig-layout',
      role: 'group',
      'aria-label':
        `GPU ${gpu.index} MIG layout: ${slices} memory slices, ${gpu.jobs.length} instance(s) in use, ` +
        `${gpu.migIdleInstances.length} idle, ${slices - used} slice(s) free`,
      style: { gridTemplateColumns: `repeat(${slices}, 1fr)` },
    },
    cells,
    instances,
    idle,
  );
}

/** Memory: allocated per job (thin bar) and the measured use when known. @param {any} gpu */
function renderMemoryBar(gpu) {
  const total = gpu.gpuMemoryMiB;
  const ownMiB = gpu.jobs.reduce((sum, j) => sum + j.gpuMemoryMiB, 0);
  const othersMiB = Math.max(0, gpu.allocatedGpuMemoryMiB - ownMiB);
  const parts = gpu.jobs.map((job) =>
    h('div', {
      class: 'mem-seg',
      style: { width: `${(job.gpuMemoryMiB / total) * 100}%`, backgroundColor: tenantColor(job.tenant) },
    }),
  );
  if (othersMiB > 0)
    parts.push(h('div', { class: 'mem-seg others', style: { width: `${(othersMiB / total) * 100}%` } }));
  const used = gpu.memoryUsedMiB;
  const marker =
    used === null ? null : h('div', { class: 'mem-used', style: { left: `${Math.min(100, (used / total) * 100)}%` } });
  const label =
    `GPU ${gpu.index} memory: ${formatMiB(gpu.allocatedGpuMemoryMiB)} of ${formatMiB(total)} allocated, ` +
    `${formatMiB(gpu.freeGpuMemoryMiB)} free${used === null ? '' : `, ${formatMiB(used)} used (measured)`}`;
  return h('div', { class: 'bar memory', role: 'img', 'aria-label': label, title: label }, parts, marker);
}

/**
 * The tenant colour legend (names in text, so colour is not the only cue).
 * @param {HTMLElement} container @param {string[]} tenants
 */
export function renderLegend(container, tenants) {
  replaceChildren(
    container,
    tenants.map((t) =>
      h(
        'span',
        { class: 'legend-item' },
        h('span', { class: 'swatch', 'aria-hidden': 'true', style: { backgroundColor: tenantColor(t) } }),
        t,
      ),
    ),
  );
}
