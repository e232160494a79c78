/**
 * Entry point of the dashboard: wires login, the live stream and the sections. Every snapshot
 * (at connect and on each change) re-renders GPUs, queue and quotas, keeping keyboard focus on the
 * same tile, segment or button, and fetches the Jobs list again with the user's filter (kept, with
 * its scroll position and focus); changes of job state are announced politely in a live region.
 */
import { apiCall, clearToken } from './api.js';
import { h, rememberFocus, restoreFocus } from './dom.js';
import { UsageChart } from './charts.js';
import { renderGpus, renderLegend } from './gpus.js';
import { JobPanel } from './job-panel.js';
import { JobList } from './job-list.js';
import { mergeJobs } from './jobs.js';
import { LiveStream } from './live.js';
import { setupLogin } from './login.js';
import { renderQueue, tickWaits } from './queue.js';
import { setupSubmitForm, updateTenantChoice } from './submit.js';
import { renderTenants } from './tenants.js';

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const announcer = $('announcer');
/** Says `text` politely through the live region. @param {string} text */
function announce(text) {
  announcer.append(h('p', { text }));
  while (announcer.childElementCount > 5) announcer.firstElementChild?.remove();
}

let role = 'admin';
/** @type {Map<number, string>|null} */
let knownStates = null;
const panel = new JobPanel({ announce });
const chart = new UsageChart($('usage-chart'), $('usage-summary'));
const openJob = (id, opener) => void panel.open(id, opener);
const jobList = new JobList({
  form: /** @type {HTMLFormElement} */ ($('job-filter')),
  search: /** @type {HTMLInputElement} */ ($('job-search')),
  state: /** @type {HTMLSelectElement} */ ($('job-state')),
  tenant: /** @type {HTMLSelectElement} */ ($('job-tenant')),
  tenantField: $('job-tenant-field'),
  count: $('job-count'),
  body: $('jobs-body'),
  more: /** @type {HTMLButtonElement} */ ($('jobs-more')),
  onOpenJob: openJob,
});

/** The sections a snapshot re-renders, where keyboard focus must survive the re-render. */
const RERENDERED = ['gpu-list', 'queue-body', 'tenants-body'];

/** @param {any} snapshot */
function render(snapshot) {
  const focused = rememberFocus(RERENDERED.map($));
  role = snapshot.status.you.role;
  const who = role === 'admin' ? 'admin' : `tenant ${snapshot.status.you.tenant}`;
  const counts =
    Object.entries(snapshot.status.jobs)
      .map(([state, n]) => `${n} ${state}`)
      .join(', ') || 'no active jobs';
  $('server-status').textContent =
    `Signed in as ${who} · gpushare ${snapshot.status.version} · ${snapshot.status.gpuSource} GPUs · ` +
    `${counts}${snapshot.status.draining ? ' · draining' : ''}`;
  renderGpus($('gpu-list'), snapshot.gpus, openJob);
  const tenants = [
    ...new Set([...snapshot.quotas.map((q) => q.tenant), ...snapshot.gpus.flatMap((g) => g.jobs.map((j) => j.tenant))]),
  ].sort();
  renderLegend($('tenant-legend'), tenants);
  renderQueue($('queue-body'), snapshot.queue, openJob, snapshot.queueLength ?? snapshot.queue.length);
  // Newer servers send waiting jobs only in `queue`, older ones in both: merge, each job once.
  const jobs = mergeJobs(snapshot.queue, snapshot.jobs);
  // The Jobs list is filtered on the server: fetched again (with the user's filter) on every update.
  jobList.setTenants(
    role === 'admin',
    snapshot.quotas.map((q) => q.tenant),
  );
  jobList.refresh();
  renderTenants($('tenants-body'), snapshot.quotas);
  updateTenantChoice(
    role === 'admin',
    snapshot.quotas.map((q) => q.tenant),
  );
  if (snapshot.usage) chart.push(snapshot.usage);
  restoreFocus(focused);
  announceChanges(jobs);
  panel.refreshIfChanged(jobs);
}

/** Announces jobs that changed state since the last snapshot (at most three, then a count). @param {any[]} jobs */
function announceChanges(jobs) {
  const next = new Map(jobs.map((j) => [j.id, j.state]));
  if (knownStates) {
    const changes = jobs
      .filter((j) => knownStates.get(j.id) !== j.state)
      .map((j) => `Job ${j.id} ${j.name} is ${j.state}.`);
    const gone = [...knownStates.keys()].filter((id) => !next.has(id)).length;
    const lines = changes.slice(0, 3);
    if (changes.length > 3) lines.push(`${changes.length - 3} more job(s) changed.`);
    if (gone > 0 && changes.length === 0) lines.push(`${gone} job(s) left the list.`);
    if (lines.length > 0) announce(lines.join(' '));
  }
  knownStates = next;
}

const connection = $('connection');
const live = new LiveStream({
  onEvent: (name, data) => {
    if (name === 'snapshot') render(data);
    else if (name === 'usage') chart.push(data);
  },
  onState: (state, detail) => {
    connection.hidden = false;
    connection.textContent = detail;
    connection.dataset.state = state;
  },
  onUnauthorized: (message) => {
    clearToken();
    stopDashboard();
    login.showLogin(message);
  },
});

let waitTimer = null;
function startDashboard() {
  $('dashboard').hidden = false;
  knownStates = null;
  apiCall('GET', '/usage/history')
    .then((history) => chart.load(history))
    .catch((error) => {
      $('usage-summary').textContent = `Usage history unavailable: ${error.message}`;
    });
  live.start();
  waitTimer = setInterval(() => tickWaits($('queue-body')), 1000);
}

function stopDashboard() {
  live.stop();
  if (waitTimer) clearInterval(waitTimer);
  panel.close();
  $('dashboard').hidden = true;
  connection.hidden = true;
  $('server-status').textContent = '';
}

const login = setupLogin({
  onLogin: (status) => {
    role = status.you.role;
    $('server-status').textContent = `Signed in as ${role === 'admin' ? 'admin' : `tenant ${status.you.tenant}`}`;
    startDashboard();
    $('main').focus();
  },
  onLogout: stopDashboard,
});
setupSubmitForm({ isAdmin: () => role === 'admin', announce });
void login.tryStoredToken();
