/**
 * The job panel: opened from a GPU segment, the queue or the jobs list (click, or Enter on the
 * focused button). Shows the job's details, transitions and logs (stdout and stderr of the latest
 * attempt, followed every second while the attempt runs) and, for a job with QoS targets, each
 * target with its latest value, state and violations; a button cancels the job; Escape or the
 * Close button closes it and returns focus to where it was opened from.
 */
import { apiCall } from './api.js';
import { enforcementText, formatMiB, formatTime, h, replaceChildren } from './dom.js';
import { formatSeconds, qosSummary, shareText } from './jobs.js';

const FOLLOW_INTERVAL_MS = 1000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** The panel's state and behaviour. */
export class JobPanel {
  /** @param {{ announce: (text: string) => void }} options */
  constructor({ announce }) {
    this.panel = /** @type {HTMLElement} */ (document.getElementById('job-panel'));
    this.title = /** @type {HTMLElement} */ (document.getElementById('job-panel-title'));
    this.body = /** @type {HTMLElement} */ (document.getElementById('job-panel-body'));
    this.announce = announce;
    /** @type {number|null} */
    this.jobId = null;
    /** @type {HTMLElement|null} */
    this.opener = null;
    this.generation = 0;
    document.getElementById('job-panel-close').addEventListener('click', () => this.close());
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !this.panel.hidden) {
        event.preventDefault();
        this.close();
      }
    });
  }

  /** Opens job `jobId`. @param {number} jobId @param {HTMLElement|null} opener */
  async open(jobId, opener) {
    this.generation += 1;
    const generation = this.generation;
    this.jobId = jobId;
    this.opener = opener;
    this.title.textContent = `Job ${jobId}`;
    replaceChildren(this.body, h('p', { text: 'Loading…' }));
    this.panel.hidden = false;
    this.panel.focus();
    try {
      const job = await apiCall('GET', `/jobs/${jobId}`);
      if (generation !== this.generation) return;
      this.render(job, generation);
    } catch (error) {
      if (generation === this.generation)
        replaceChildren(this.body, h('p', { class: 'error', role: 'alert', text: error.message }));
    }
  }

  /** Closes the panel and stops following logs. */
  close() {
    if (this.panel.hidden) return;
    this.generation += 1;
    this.panel.hidden = true;
    const id = this.jobId;
    this.jobId = null;
    const back =
      this.opener && this.opener.isConnected
        ? this.opener
        : (document.querySelector(`button[data-job="${id}"]`) ?? document.getElementById('jobs'));
    if (back instanceof HTMLElement) back.focus();
  }

  /** Re-reads the open job when a live update says it changed. @param {any[]} jobs */
  refreshIfChanged(jobs) {
    if (this.jobId === null || !this.shown) return;
    const now = jobs.find((j) => j.id === this.jobId);
    if (
      now &&
      (now.state !== this.shown.state || JSON.stringify(now.qos ?? null) !== JSON.stringify(this.shown.qos ?? null))
    )
      void this.reload();
  }

  async reload() {
    if (this.jobId === null) return;
    const generation = this.generation;
    try {
      const job = await apiCall('GET', `/jobs/${this.jobId}`);
      if (generation === this.generation) this.renderDetails(job);
    } catch {
      // Keep what is shown; the next update retries.
    }
  }

  /** @param {any} job @param {number} generation */
  render(job, generation) {
    this.details = h('div', { class: 'job-details' });
    const stdout = h('pre', { class: 'log', tabindex: '0', 'aria-label': `Output (stdout) of job ${job.id}` });
    const stderr = h('pre', { class: 'log', tabindex: '0', 'aria-label': `Errors (stderr) of job ${job.id}` });
    const follow = h('p', { class: 'hint', role: 'status' });
    replaceChildren(
      this.body,
      this.details,
      h('h3', { text: 'Logs' }),
      follow,
      h('h4', { text: 'stdout' }),
      stdout,
      h('h4', { text: 'stderr' }),
      stderr,
    );
    this.renderDetails(job);
    void this.follow(job, generation, { stdout, stderr, follow });
  }

  /** @param {any} job */
  renderDetails(job) {
    this.shown = job;
    this.title.textContent = `Job ${job.id} ${job.name}`;
    const cancel = h('button', {
      type: 'button',
      class: 'danger',
      disabled: TERMINAL.has(job.state),
      text: `Cancel job ${job.id}`,
    });
    const message = h('p', { role: 'status' });
    cancel.addEventListener('click', async () => {
      cancel.disabled = true;
      try {
        const after = await apiCall('POST', `/jobs/${job.id}/cancel`);
        message.textContent = `Cancelling job ${job.id} (${after.state}).`;
        this.announce(`Cancel requested for job ${job.id} ${job.name}`);
      } catch (error) {
        message.textContent = error.message;
        cancel.disabled = false;
      }
    });
    const facts = [
      ['State', `${job.state}${job.reason ? ` — ${job.reason}` : ''}`],
      ['Tenant', job.tenant],
      ['Priority', `${job.priorityClass} (${job.priority})${job.preemptible ? ', preemptible' : ''}`],
      ['Command', job.command.join(' ')],
      ['Working directory', job.workingDirectory],
      ['GPU', shareText(job)],
      [
        'Enforced',
        job.placement
          ? `${enforcementText(job.placement.enforcement)}${job.placement.simulated ? ' (simulated GPU)' : ''}`
          : '—',
      ],
      ['Host', `${job.cpuMilli} milli-CPU, ${formatMiB(job.hostMemoryMiB)}`],
      ['Attempt', `${job.attempt} (retries ${job.retries})`],
      ['Submitted', formatTime(job.submittedAt)],
      ['Started', formatTime(job.startedAt)],
      [
        'Ended',
        job.endedAt
          ? `${formatTime(job.endedAt)}${job.exitCode !== null ? `, exit code ${job.exitCode}` : ''}` +
            `${job.signal ? `, signal ${job.signal}` : ''}`
          : '—',
      ],
    ];
    replaceChildren(
      this.details,
      h(
        'dl',
        { class: 'detail-list' },
        facts.map(([k, v]) => h('div', {}, h('dt', { text: k }), h('dd', { text: v }))),
      ),
      h('div', { class: 'actions' }, cancel, message),
      renderQos(job),
      job.events
        ? h(
            'details',
            {},
            h('summary', { text: `Transitions (${job.events.length})` }),
            h(
              'ol',
              { class: 'events' },
              job.events.map((e) =>
                h('li', {
                  text: `${formatTime(e.at)}: ${e.from ?? 'submitted'} → ${e.to}${e.reason ? ` (${e.reason})` : ''}`,
                }),
              ),
            ),
          )
        : null,
    );
  }

  /**
   * Reads both log streams from offset 0 and keeps reading while the attempt has not ended.
   * @param {any} job @param {number} generation
   * @param {{ stdout: HTMLElement, stderr: HTMLElement, follow: HTMLElement }} out
   */
  async follow(job, generation, out) {
    const offsets = { stdout: 0, stderr: 0 };
    const ended = { stdout: false, stderr: false };
    if (job.attempt === 0) {
      out.follow.textContent = 'No output yet: the job has not started.';
    }
    while (generation === this.generation) {
      for (const stream of /** @type {const} */ (['stdout', 'stderr'])) {
        if (ended[stream] || this.shown?.attempt === 0) continue;
        try {
          const chunk = await apiCall('GET', `/jobs/${job.id}/logs?stream=${stream}&offset=${offsets[stream]}`);
          if (generation !== this.generation) return;
          if (chunk.text) out[stream].append(document.createTextNode(chunk.text));
          offsets[stream] = chunk.nextOffset;
          ended[stream] = chunk.ended;
        } catch (error) {
          out.follow.textContent = `Reading logs failed: ${error.message}`;
          return;
        }
      }
      if (ended.stdout && ended.stderr) {
        out.follow.textContent = 'The attempt has ended; the logs are complete.';
        return;
      }
      if (this.shown?.attempt !== 0) out.follow.textContent = 'Following the logs while the job runs.';
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
      if (this.shown?.attempt === 0 && job.attempt === 0) await this.reload();
    }
  }
}

/**
 * The state a QoS badge shows: `violation`, `missing`, `no-report` or `ok`.
 * @param {any} s one entry of a job's `qos.status`
 */
function qosState(s) {
  if (s.violating) return 'violation';
  if (s.missingSince) return 'missing';
  return s.reports === 0 ? 'no-report' : 'ok';
}

/**
 * The panel's "QoS" section: one row per target with its goal, latest value, state and
 * violations; null for a job without targets.
 * @param {any} job
 */
function renderQos(job) {
  const summary = qosSummary(job);
  if (!summary) return null;
  const headingId = `job-${job.id}-qos`;
  const status = job.qos.status ?? [];
  const rows =
    status.length > 0
      ? status.map((s) => {
          const state = s.violating
            ? `violation since ${formatTime(s.missingSince)}`
            : s.missingSince
              ? `missed since ${formatTime(s.missingSince)}`
              : s.reports === 0
                ? 'no report yet'
                : 'ok';
          return h(
            'tr',
            {},
            h('th', { scope: 'row', text: s.kind }),
            h('td', { text: formatSeconds(s.targetSeconds) }),
            h('td', {
              text:
                s.lastObservedSeconds === null
                  ? '—'
                  : `${formatSeconds(s.lastObservedSeconds)} (${formatTime(s.lastReportAt)}, ${s.reports} report(s))`,
            }),
            h(
              'td',
              {},
              h('span', {
                class: `qos-badge qos-${qosState(s)}`,
                text: state,
              }),
            ),
            h('td', { text: String(s.violations) }),
          );
        })
      : Object.entries(job.qos.targets).map(([key, seconds]) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row', text: key === 'stepSeconds' ? 'step' : 'latency' }),
            h('td', { text: formatSeconds(seconds) }),
            h('td', { text: '—' }),
            h('td', { text: 'not running' }),
            h('td', { text: '—' }),
          ),
        );
  return h(
    'section',
    { class: 'qos', 'aria-labelledby': headingId },
    h('h3', { id: headingId, text: 'QoS' }),
    h('p', {}, h('span', { class: `qos-badge qos-${summary.state}`, text: summary.text })),
    h(
      'table',
      { class: 'table' },
      h('caption', { class: 'visually-hidden', text: `QoS targets of job ${job.id}` }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Target', 'Goal', 'Latest', 'State', 'Violations'].map((c) => h('th', { scope: 'col', text: c })),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
