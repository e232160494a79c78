/**
 * The usage chart (uPlot, loaded as the global `uPlot` from /assets/vendor/): cluster allocation
 * ratio and mean measured utilization over time, in percent. Filled from GET /api/v1/usage/history,
 * then one point per `usage` live event. A text summary beside it gives the newest values, so the
 * chart is not the only way to read them.
 */
import { formatPct } from './dom.js';

/** The usage chart and its data. */
export class UsageChart {
  /** @param {HTMLElement} container @param {HTMLElement} summary */
  constructor(container, summary) {
    this.container = container;
    this.summary = summary;
    /** @type {[number[], (number|null)[], (number|null)[]]} */
    this.data = [[], [], []];
    this.capacity = 720;
    this.plot = null;
    this.resize = () => this.plot?.setSize(this.size());
    window.addEventListener('resize', this.resize);
  }

  size() {
    return { width: Math.max(280, this.container.clientWidth - 8), height: 220 };
  }

  /**
   * Replaces the data with a history (`GET /api/v1/usage/history`). @param {{capacity:number, samples:any[]}} history
   */
  load(history) {
    this.capacity = history.capacity;
    this.data = [[], [], []];
    for (const sample of history.samples) this.push(sample, false);
    this.draw();
  }

  /** Appends one sample. @param {any} sample @param {boolean} [redraw] */
  push(sample, redraw = true) {
    const t = Date.parse(sample.at) / 1000;
    const last = this.data[0][this.data[0].length - 1];
    if (last !== undefined && t <= last) return;
    this.data[0].push(t);
    this.data[1].push(Math.round(sample.allocationRatio * 1000) / 10);
    this.data[2].push(
      sample.meanUtilizationRatio === null ? null : Math.round(sample.meanUtilizationRatio * 1000) / 10,
    );
    for (const series of this.data) if (series.length > this.capacity) series.splice(0, series.length - this.capacity);
    this.summary.textContent =
      `Now: ${formatPct(sample.allocationRatio)} of schedulable GPU compute allocated; mean ` +
      `measured utilization ` +
      `${sample.meanUtilizationRatio === null ? 'not measured' : formatPct(sample.meanUtilizationRatio)}.`;
    this.container.setAttribute(
      'aria-label',
      `Chart of cluster allocation and mean measured utilization over the last ${this.data[0].length} ` +
        `samples; newest: allocation ${formatPct(sample.allocationRatio)}, utilization ` +
        `${formatPct(sample.meanUtilizationRatio)}`,
    );
    if (redraw) this.draw();
  }

  draw() {
    if (typeof uPlot === 'undefined') {
      this.container.textContent = 'The chart library did not load; the values are in the summary above.';
      return;
    }
    if (this.plot) {
      this.plot.setData(this.data);
      return;
    }
    this.plot = new uPlot(
      {
        ...this.size(),
        // At least the last five minutes on the time axis, so a short history is not stretched.
        scales: { x: { time: true, range: (_u, min, max) => [Math.min(min, max - 300), max] }, y: { range: [0, 100] } },
        axes: [{}, { label: '%', values: (_u, ticks) => ticks.map((v) => `${v}%`) }],
        series: [
          {},
          {
            label: 'Allocated',
            stroke: '#1f6feb',
            width: 2,
            fill: 'rgba(31,111,235,0.12)',
            value: (_u, v) => (v === null ? '—' : `${v}%`),
          },
          {
            label: 'Utilization (measured)',
            stroke: '#b35900',
            width: 2,
            dash: [6, 4],
            spanGaps: false,
            value: (_u, v) => (v === null ? '—' : `${v}%`),
          },
        ],
      },
      this.data,
      this.container,
    );
  }
}
