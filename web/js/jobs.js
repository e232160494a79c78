/**
 * The jobs list: active jobs, then the most recent ended ones, with state and QoS (as text, not
 * only colour), tenant, GPU share and placement. Each row's first cell is a button that opens the
 * job. Built from the snapshot's `queue` and `jobs` together (see `mergeJobs`).
 */
import { formatMiB, formatTime, h, replaceChildren } from './dom.js';

/** "GPU 0 400 m · mps" per placed GPU, or the request when not placed. @param {any} job */
export function shareText(job) {
  if (job.placement) {
    return (
      job.placement.gpus
        .map(
          (g) =>
            `GPU ${g.index} ${g.migProfile ? `MIG ${g.migProfile}` : `${g.gpuMilli} milli-GPU`}, ` +
            `${formatMiB(g.gpuMemoryMiB)}`,
        )
        .join('; ') + ` · ${job.placement.mode}`
    );
  }
  const memory = job.gpu.gpuMemoryMiB === null ? '' : `, ${formatMiB(job.gpu.gpuMemoryMiB)}`;
  return `${job.gpu.gpuCount} × ${job.gpu.gpuMilli} milli-GPU${memory} · ${job.gpu.mode}`;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * The snapshot's waiting jobs (`queue`) and its other jobs (`jobs`) as one list, each job once (by
 * id; older servers also list the waiting jobs in `jobs`): active jobs by ascending id, then the
 * ended ones by ascending id.
 * @param {any[]} queue JobView[] @param {any[]} jobs JobView[]
 */
export function mergeJobs(queue, jobs) {
  const byId = new Map();
  for (const job of [...queue, ...jobs]) byId.set(job.id, job);
  const all = [...byId.values()];
  const byIdAsc = (a, b) => a.id - b.id;
  return [
    ...all.filter((j) => !TERMINAL.has(j.state)).sort(byIdAsc),
    ...all.filter((j) => TERMINAL.has(j.state)).sort(byIdAsc),
  ];
}

/** Seconds as QoS text: "0.5 s", "0.623 s". @param {number} seconds */
export function formatSeconds(seconds) {
  return `${Number(seconds.toPrecision(3))} s`;
}

/**
 * A job's QoS as one word-state, or null when it declares no targets: `violation` (a target is
 * violating), `missing` (the latest report misses a target, not yet for qosViolationSeconds),
 * `ok` (reports meet every reported target), `no-report` (running, nothing reported yet) or
 * `not-running` (no QoS state: the job waits or has ended).
 * @param {any} job
 * @returns {{ state: string, text: string, detail: string } | null}
 */
export function qosSummary(job) {
  if (!job.qos) return null;
  const status = job.qos.status ?? [];
  const detail = status
    .map(
      (s) =>
        `${s.kind} target ${formatSeconds(s.targetSeconds)}: ` +
        `${s.lastObservedSeconds === null ? 'no report yet' : `latest ${formatSeconds(s.lastObservedSeconds)}`}` +
        `${s.violating ? ', violating' : s.missingSince ? ', missing' : ''}, ${s.violations} violation(s)`,
    )
    .join('; ');
  const targets = Object.entries(job.qos.targets)
    .map(([k, v]) => `${k === 'stepSeconds' ? 'step' : 'latency'} target ${formatSeconds(v)}`)
    .join(', ');
  if (status.length === 0)
    return {
      state: 'not-running',
      text: 'QoS: not running',
      detail: `${targets}; no QoS state while the job is not running`,
    };
  if (status.some((s) => s.violating)) return { state: 'violation', text: 'QoS violation', detail };
  if (status.some((s) => s.missingSince)) return { state: 'missing', text: 'QoS: target missed', detail };
  if (status.every((s) => s.reports === 0)) return { state: 'no-report', text: 'QoS: no report yet', detail };
  return { state: 'ok', text: 'QoS ok', detail };
}

/** The QoS badge of a job (text, not only colour), or "—" without targets. @param {any} job */
function qosBadge(job) {
  const qos = qosSummary(job);
  if (!qos) return h('span', { class: 'hint', text: '—' });
  return h('span', { class: `qos-badge qos-${qos.state}`, title: qos.detail, 'data-qos': qos.state, text: qos.text });
}

/**
 * @param {HTMLElement} container
 * @param {any[]} jobs JobView[] (see `mergeJobs`)
 * @param {(jobId: number, opener: HTMLElement) => void} onOpenJob
 */
export function renderJobs(container, jobs, onOpenJob) {
  if (jobs.length === 0) {
    replaceChildren(container, h('p', { text: 'No jobs yet. Submit one below or with gpushare submit.' }));
    return;
  }
  const rows = jobs.map((job) => {
    const open = h('button', {
      type: 'button',
      class: 'link',
      'aria-label': `Open job ${job.id} ${job.name} (${job.state})`,
      text: `#${job.id}`,
    });
    open.addEventListener('click', () => onOpenJob(job.id, open));
    const row = h(
      'tr',
      { 'data-job': job.id },
      h('td', {}, open),
      h('td', { text: job.name }),
      h('td', { text: job.tenant }),
      h('td', {}, h('span', { class: `state state-${job.state}`, text: job.state })),
      h('td', {}, qosBadge(job)),
      h('td', { text: shareText(job) }),
      h('td', { text: formatTime(job.submittedAt) }),
      h('td', {
        text: job.endedAt
          ? `${formatTime(job.endedAt)}` +
            `${job.exitCode !== null ? ` (exit ${job.exitCode})` : job.signal ? ` (${job.signal})` : ''}`
          : '—',
      }),
    );
    row.addEventListener('click', (event) => {
      if (event.target instanceof HTMLElement && event.target.closest('button')) return;
      onOpenJob(job.id, open);
    });
    return row;
  });
  replaceChildren(
    container,
    h(
      'table',
      { class: 'table jobs-table' },
      h('caption', { class: 'visually-hidden', text: `${jobs.length} job(s)` }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Job', 'Name', 'Tenant', 'State', 'QoS', 'GPU share', 'Submitted', 'Ended'].map((c) =>
            h('th', { scope: 'col', text: c }),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
