/**
 * The jobs list: active jobs, then the most recent ended ones, with state (as text, not only
 * colour), tenant, GPU share and placement. Each row's first cell is a button that opens the job.
 */
import { formatMiB, formatTime, h, replaceChildren } from './dom.js';

/** "GPU 0 400 m · mps" per placed GPU, or the request when not placed. @param {any} job */
export function shareText(job) {
  if (job.placement) {
    return job.placement.gpus.map((g) => `GPU ${g.index} ${g.migProfile ? `MIG ${g.migProfile}` : `${g.gpuMilli} milli-GPU`}, ${formatMiB(g.gpuMemoryMiB)}`).join('; ') + ` · ${job.placement.mode}`;
  }
  const memory = job.gpu.gpuMemoryMiB === null ? '' : `, ${formatMiB(job.gpu.gpuMemoryMiB)}`;
  return `${job.gpu.gpuCount} × ${job.gpu.gpuMilli} milli-GPU${memory} · ${job.gpu.mode}`;
}

/**
 * @param {HTMLElement} container
 * @param {any[]} jobs JobView[]
 * @param {(jobId: number, opener: HTMLElement) => void} onOpenJob
 */
export function renderJobs(container, jobs, onOpenJob) {
  if (jobs.length === 0) {
    replaceChildren(container, h('p', { text: 'No jobs yet. Submit one below or with gpushare submit.' }));
    return;
  }
  const rows = jobs.map((job) => {
    const open = h('button', { type: 'button', class: 'link', 'aria-label': `Open job ${job.id} ${job.name} (${job.state})`, text: `#${job.id}` });
    open.addEventListener('click', () => onOpenJob(job.id, open));
    const row = h('tr', { 'data-job': job.id },
      h('td', {}, open),
      h('td', { text: job.name }),
      h('td', { text: job.tenant }),
      h('td', {}, h('span', { class: `state state-${job.state}`, text: job.state })),
      h('td', { text: shareText(job) }),
      h('td', { text: formatTime(job.submittedAt) }),
      h('td', { text: job.endedAt ? `${formatTime(job.endedAt)}${job.exitCode !== null ? ` (exit ${job.exitCode})` : job.signal ? ` (${job.signal})` : ''}` : '—' }));
    row.addEventListener('click', (event) => {
      if (event.target instanceof HTMLElement && event.target.closest('button')) return;
      onOpenJob(job.id, open);
    });
    return row;
  });
  replaceChildren(container, h('table', { class: 'table jobs-table' },
    h('caption', { class: 'visually-hidden', text: `${jobs.length} job(s)` }),
    h('thead', {}, h('tr', {}, ['Job', 'Name', 'Tenant', 'State', 'GPU share', 'Submitted', 'Ended'].map((c) => h('th', { scope: 'col', text: c })))),
    h('tbody', {}, rows)));
}
