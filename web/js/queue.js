/**
 * The queue: pending and preempted jobs in id order with priority class, tenant, how long each has
 * waited (since submit, updated every second) and why it waits (the scheduler's reason).
 */
import { formatDuration, h, replaceChildren } from './dom.js';

/**
 * @param {HTMLElement} container
 * @param {any[]} queue JobView[] of pending/preempted jobs
 * @param {(jobId: number, opener: HTMLElement) => void} onOpenJob
 * @param {number} [total] every waiting job (the list may hold only the first of them)
 */
export function renderQueue(container, queue, onOpenJob, total = queue.length) {
  if (queue.length === 0) {
    replaceChildren(container, h('p', { text: 'No job is waiting.' }));
    return;
  }
  const rows = queue.map((job) => {
    const open = h('button', {
      type: 'button',
      class: 'link',
      'aria-label': `Open job ${job.id} ${job.name}`,
      text: `#${job.id}`,
    });
    open.addEventListener('click', () => onOpenJob(job.id, open));
    return h(
      'tr',
      {},
      h('td', {}, open),
      h('td', { text: job.name }),
      h('td', { text: job.tenant }),
      h('td', { text: `${job.priorityClass} (${job.priority})` }),
      h('td', { text: job.state }),
      h('td', {
        class: 'wait',
        'data-since': job.submittedAt,
        text: formatDuration((Date.now() - Date.parse(job.submittedAt)) / 1000),
      }),
      h('td', { class: 'reason', text: job.reason ?? '—' }),
    );
  });
  const more =
    total > queue.length
      ? h('p', {
          class: 'hint',
          text:
            `Showing the first ${queue.length} of ${total} waiting jobs; the Jobs list (state: Waiting) ` +
            `filters and pages them all.`,
        })
      : null;
  // The table scrolls inside a box of bounded height; its scroll position survives the re-render.
  const scrollTop = container.querySelector('.table-scroll')?.scrollTop ?? 0;
  const scroll = h(
    'div',
    { class: 'table-scroll queue-scroll', role: 'region', 'aria-label': 'Waiting jobs', tabindex: '0' },
    h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden', text: `${total} waiting job(s)` }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Job', 'Name', 'Tenant', 'Priority', 'State', 'Waiting', 'Reason'].map((c) =>
            h('th', { scope: 'col', text: c }),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
  replaceChildren(container, more, scroll);
  scroll.scrollTop = scrollTop;
}

/** Refreshes the "Waiting" cells without re-rendering. @param {HTMLElement} container */
export function tickWaits(container) {
  for (const cell of container.querySelectorAll('td.wait')) {
    cell.textContent = formatDuration((Date.now() - Date.parse(cell.getAttribute('data-since'))) / 1000);
  }
}
