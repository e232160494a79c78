/**
 * The Jobs section: a filter (name search, state, and for admins tenant) applied on the server by
 * `GET /api/v1/dashboard/jobs`, the count of matching jobs ("1 of 10,000 jobs"), and a compact
 * table in a scroll area of bounded height, one page of 50 at first, "Show 50 more" up to 500.
 *
 * The filter lives in the page's URL (`?q=…&state=…&tenant=…`, replaced as it changes), so a
 * filtered view can be shared and reloaded. Live updates fetch the list again with the same filter
 * and keep the table's scroll position and the focused row; the filter's fields are never redrawn.
 */
import { apiCall } from './api.js';
import { h, rememberFocus, replaceChildren, restoreFocus } from './dom.js';
import { renderJobs } from './jobs.js';

/** Jobs a page shows at first, and the step of "Show more". */
const PAGE_SIZE = 50;
/** The most jobs the list shows (the server's page limit); narrow the filter for the rest. */
const MAX_SHOWN = 500;
/** Quiet time after a keystroke before the search is sent, ms. */
const SEARCH_DELAY_MS = 250;

/**
 * The name pattern the search box asks for: the text as a pattern when it holds a `*` (the whole
 * name must match: `train-*`), else every name that contains it (`foo` is `*foo*`); null when the
 * box is empty. Leading and trailing spaces are ignored.
 * @param {string} text
 */
export function namePatternOf(text) {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return trimmed.includes('*') ? trimmed : `*${trimmed}*`;
}

/**
 * The filter a URL's query asks for: `q` (search text), `state` (comma-separated states) and `tenant`.
 * @param {string} search `location.search`
 * @returns {{ q: string, state: string, tenant: string }}
 */
function filterFromUrl(search) {
  const params = new URLSearchParams(search);
  return { q: params.get('q') ?? '', state: params.get('state') ?? '', tenant: params.get('tenant') ?? '' };
}

/**
 * `href` with the filter in its query (empty fields left out; other parameters kept).
 * @param {{ q: string, state: string, tenant: string }} filter @param {string} href
 */
function urlWithFilter(filter, href) {
  const url = new URL(href);
  for (const [key, value] of Object.entries(filter)) {
    if (value === '') url.searchParams.delete(key);
    else url.searchParams.set(key, value);
  }
  return url.toString();
}

const count = new Intl.NumberFormat('en-US');

/** The Jobs section's filter and list. */
export class JobList {
  /**
   * @param {{ form: HTMLFormElement, search: HTMLInputElement, state: HTMLSelectElement, tenant: HTMLSelectElement,
   * tenantField: HTMLElement,
   *   count: HTMLElement, body: HTMLElement, more: HTMLButtonElement, onOpenJob: (jobId: number, opener: HTMLElement)
   *   => void }} parts
   */
  constructor(parts) {
    this.parts = parts;
    this.shown = PAGE_SIZE;
    /** @type {string|null} the query of the request in flight */
    this.inFlight = null;
    this.again = false;
    this.timer = null;
    const initial = filterFromUrl(location.search);
    /** The filter the list shows: the fields' values when last applied (not while one is being typed). */
    this.applied = initial;
    parts.search.value = initial.q;
    this.selectValue(parts.state, initial.state);
    this.selectValue(parts.tenant, initial.tenant);
    parts.search.addEventListener('input', () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.changed(), SEARCH_DELAY_MS);
    });
    parts.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.changed();
    });
    parts.form.addEventListener('reset', () => setTimeout(() => this.changed(), 0));
    parts.state.addEventListener('change', () => this.changed());
    parts.tenant.addEventListener('change', () => this.changed());
    parts.more.addEventListener('click', () => {
      this.shown = Math.min(MAX_SHOWN, this.shown + PAGE_SIZE);
      this.refresh();
    });
  }

  /**
   * Selects `value` in `select`, adding it as an option when missing (a shared URL may name one). @param
   * {HTMLSelectElement} select @param {string} value
   */
  selectValue(select, value) {
    if (value !== '' && ![...select.options].some((o) => o.value === value))
      select.append(h('option', { value, text: value }));
    select.value = value;
  }

  /** The filter as the fields hold it. */
  filter() {
    return { q: this.parts.search.value.trim(), state: this.parts.state.value, tenant: this.parts.tenant.value };
  }

  /** The API query of the applied filter and page (a non-admin has no tenant filter). */
  query() {
    const { q, state } = this.applied;
    const tenant = this.parts.tenantField.hidden ? '' : this.applied.tenant;
    const params = new URLSearchParams();
    const pattern = namePatternOf(q);
    if (pattern !== null) params.set('name', pattern);
    if (state !== '') params.set('states', state);
    if (tenant !== '') params.set('tenant', tenant);
    params.set('limit', String(this.shown));
    return params.toString();
  }

  /** The filter changed: back to the first page and the top, the URL updated, the list fetched. */
  changed() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.shown = PAGE_SIZE;
    this.parts.body.scrollTop = 0;
    this.applied = this.filter();
    history.replaceState(history.state, '', urlWithFilter(this.applied, location.href));
    this.refresh();
  }

  /**
   * Shows the tenant filter to admins (the tenants as options, the chosen one kept); others see
   * only their tenant's jobs and have no tenant filter.
   * @param {boolean} isAdmin @param {string[]} tenants
   */
  setTenants(isAdmin, tenants) {
    const field = this.parts.tenantField;
    if (field.hidden === isAdmin) field.hidden = !isAdmin;
    if (!isAdmin) return;
    const select = this.parts.tenant;
    const wanted = ['', ...[...new Set([...tenants, select.value].filter((t) => t !== ''))].sort()];
    const have = [...select.options].map((o) => o.value);
    if (wanted.join('\n') === have.join('\n')) return;
    const chosen = select.value;
    replaceChildren(
      select,
      wanted.map((t) => h('option', { value: t, text: t === '' ? 'All tenants' : t })),
    );
    select.value = chosen;
  }

  /** Fetches the list with the current filter (one request at a time; a change meanwhile fetches again after it). */
  refresh() {
    if (this.inFlight !== null) {
      this.again = true;
      return;
    }
    const query = this.query();
    this.inFlight = query;
    apiCall('GET', `/dashboard/jobs?${query}`)
      .then(
        (page) => {
          // A filter changed while this was on its way: only the newer answer is shown.
          if (query === this.query()) this.render(page);
        },
        (error) => {
          if (query === this.query()) this.parts.count.textContent = `The jobs could not be listed: ${error.message}`;
        },
      )
      .finally(() => {
        this.inFlight = null;
        if (this.again || query !== this.query()) {
          this.again = false;
          this.refresh();
        }
      });
  }

  /** @param {{ total: number, unfiltered: number, jobs: any[] }} page */
  render(page) {
    const { body, more } = this.parts;
    const filtered = this.query() !== new URLSearchParams({ limit: String(this.shown) }).toString();
    const showing = page.jobs.length < page.total ? ` · showing the first ${count.format(page.jobs.length)}` : '';
    const text =
      `${filtered ? `${count.format(page.total)} of ${count.format(page.unfiltered)}` : count.format(page.total)}` +
      ` job${page.unfiltered === 1 ? '' : 's'}${showing}`;
    // A live region: written only when the count changes, so that updates are not read out again and again.
    if (this.parts.count.textContent !== text) this.parts.count.textContent = text;
    const focused = rememberFocus([body]);
    const scrollTop = body.scrollTop;
    if (page.jobs.length === 0 && filtered)
      replaceChildren(body, h('p', { class: 'hint', text: 'No job matches the filter.' }));
    else renderJobs(body, page.jobs, this.parts.onOpenJob);
    body.scrollTop = scrollTop;
    restoreFocus(focused);
    more.hidden = page.jobs.length >= page.total;
    more.disabled = this.shown >= MAX_SHOWN;
    more.textContent =
      this.shown >= MAX_SHOWN
        ? `Showing the first ${MAX_SHOWN}: narrow the filter to see the rest`
        : `Show ${PAGE_SIZE} more`;
  }
}
