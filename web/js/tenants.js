/**
 * Tenants and quotas, in GPU-equivalents (GET /api/v1/quotas; a tenant sees its own row): the
 * guarantee, the limit, what its scheduled and running jobs use (with a meter against the limit,
 * or the guarantee when unlimited), what it borrows above its guarantee and what waits.
 */
import { h, replaceChildren, tenantColor } from './dom.js';

const ge = (n) => (Math.round(n * 100) / 100).toString();

/** @param {HTMLElement} container @param {any[]} quotas QuotaUse[] */
export function renderTenants(container, quotas) {
  if (quotas.length === 0) {
    replaceChildren(container, h('p', { text: 'No tenants.' }));
    return;
  }
  const rows = quotas.map((q) => {
    const cap = q.limitGpuEquivalents ?? (q.guaranteedGpuEquivalents > 0 ? q.guaranteedGpuEquivalents : null);
    const meter =
      cap === null
        ? null
        : h('meter', {
            min: '0',
            max: String(cap),
            value: String(Math.min(q.usedGpuEquivalents, cap)),
            'aria-label':
              `${q.tenant}: ${ge(q.usedGpuEquivalents)} of ${ge(cap)} GPU-equivalents ` +
              `${q.limitGpuEquivalents === null ? 'guaranteed' : 'limit'} used`,
          });
    return h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row' },
        h('span', { class: 'swatch', 'aria-hidden': 'true', style: { backgroundColor: tenantColor(q.tenant) } }),
        q.tenant,
      ),
      h('td', { text: ge(q.guaranteedGpuEquivalents) }),
      h('td', { text: q.limitGpuEquivalents === null ? 'unlimited' : ge(q.limitGpuEquivalents) }),
      h('td', {}, ge(q.usedGpuEquivalents), meter ? ' ' : null, meter),
      h('td', { text: ge(q.borrowedGpuEquivalents) }),
      h('td', { text: ge(q.queuedGpuEquivalents) }),
      h('td', { text: String(q.runningJobs) }),
      h('td', { text: String(q.queuedJobs) }),
    );
  });
  replaceChildren(
    container,
    h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden', text: 'Quota use per tenant, GPU-equivalents' }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Tenant', 'Guaranteed', 'Limit', 'Used', 'Borrowed', 'Queued', 'Running jobs', 'Queued jobs'].map((c) =>
            h('th', { scope: 'col', text: c }),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
