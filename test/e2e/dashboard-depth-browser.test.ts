/**
 * The web dashboard at depth, in a real browser (Debian's chromium through playwright-core) against
 * a real `gpushare serve` with 64 simulated A100-80GB and 10,000 waiting jobs (written into the
 * store before the server starts: tenant `deep` with a quota limit of 0, so they all wait on quota
 * and none runs). Checks the Jobs list's server-side filter (a name typed in the box finds exactly
 * that job, with the count "1 of 10,001 jobs"; the state filter; a pattern with `*`), the filter in
 * the URL across a reload, the filter, scroll position and focus kept across live updates, and the
 * GPU grid: 64 tiles without horizontal scrolling at a 1280-pixel-wide viewport, a tile's details
 * on focus, and a page shorter than MAX_PAGE_HEIGHT_PX. Saves test-artifacts/dashboard-64-gpus.png.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openSqliteStore } from '../../src/adapters/store/sqlite-store.js';
import { sampleJob } from '../../src/adapters/store/store-fixtures.js';
import { requireTool } from '../support/required-tool.js';
import { api, cleanupServe, shellJob, startServe, waitForJob, type ServeHandle } from './support/serve-harness.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '..', '..');
const DEEP_JOBS = 10_000;
/** The dashboard's height bound at 64 GPUs and any number of jobs, 1280 px wide (docs/dashboard.md). */
const MAX_PAGE_HEIGHT_PX = 4000;
const spkiHash = (certPem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

/** The server certificate of a started server (written under its data directory). */
const serverCertPath = (server: { dataDir: string }): string => join(server.dataDir, 'data', 'tls', 'server.crt');
const deepName = (i: number): string => `deep-${String(i).padStart(5, '0')}`;

describe.skipIf(!requireTool(CHROMIUM, 'apt-get install chromium'))(
  'web dashboard at depth (10,000 jobs, 64 GPUs) in chromium',
  () => {
    let server: ServeHandle;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      // 10,000 waiting jobs, ids 1-10000, written in one transaction before the server opens the store.
      const dataDir = mkdtempSync(join(tmpdir(), 'gpushare-e2e-'));
      mkdirSync(join(dataDir, 'data'), { mode: 0o700 });
      const store = openSqliteStore(join(dataDir, 'data', 'gpushare.db'));
      try {
        store.createTenant('default', Date.now());
        store.createTenant('deep', Date.now());
        store.setTenantQuota('deep', { guaranteedGpuEquivalents: 0, limitGpuEquivalents: 0 });
        store.database.transaction(() => {
          for (let i = 1; i <= DEEP_JOBS; i++)
            store.insertJob(sampleJob('deep', { name: deepName(i), environment: {} }), Date.now());
        })();
      } finally {
        store.close();
      }
      // Passes every 2 s: each one goes over the whole queue, and nothing here needs them sooner.
      server = await startServe({
        dataDir,
        simulateGpus: '64xA100-80GB',
        config: { scheduleIntervalMs: 2000, usageHistoryIntervalSeconds: 60 },
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          `--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(serverCertPath(server), 'utf8'))}`,
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        timeout: WAIT_MS,
      });
      page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      page.setDefaultTimeout(WAIT_MS);
    });

    afterAll(async () => {
      await browser?.close();
      if (server) await cleanupServe(server);
    });

    it(
      'filters 10,001 jobs on the server, keeps the filter in the URL and across live updates, and ' + 'fits 64 GPUs',
      async () => {
        const consoleErrors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        page.on('pageerror', (e) => consoleErrors.push(e.message));
        // Job 10001 runs on a GPU (the default tenant has no quota limit).
        expect(
          (
            await api(
              server,
              'POST',
              '/api/v1/jobs',
              shellJob('sleep 600', { gpuMilli: 400 }, { tenant: 'default', name: 'runner' }),
            )
          ).status,
        ).toBe(201);
        await waitForJob(server, DEEP_JOBS + 1, (j) => j.state === 'running');

        await page.goto(`${server.url}/`);
        const token = page.getByLabel('Token', { exact: true });
        await token.fill(server.adminToken);
        await token.press('Enter');
        const count = page.locator('#job-count');
        const rows = page.locator('#jobs-body tbody tr');
        await count.getByText('10,001 jobs · showing the first 50', { exact: true }).waitFor();
        expect(await rows.count()).toBe(50);

        // A plain word finds the names containing it: exactly job 4217.
        const search = page.getByLabel('Search names', { exact: true });
        await search.fill('deep-04217');
        await count.getByText('1 of 10,001 jobs', { exact: true }).waitFor();
        await page.getByRole('button', { name: 'Open job 4217 deep-04217 (pending)', exact: true }).waitFor();
        expect(await rows.count()).toBe(1);
        expect(await rows.first().getAttribute('data-job')).toBe('4217');
        expect(await rows.first().getByRole('cell').nth(1).textContent()).toBe('deep-04217');
        expect(new URL(page.url()).searchParams.get('q')).toBe('deep-04217');

        // What the box sends: a plain word as "contains", a text with `*` as the whole-name pattern.
        expect(
          await page.evaluate(
            `import('/js/job-list.js').then((m) => [m.namePatternOf('deep-04217'), m.namePatternOf(' ` +
              `train-* '), m.namePatternOf('  ')])`,
          ),
        ).toEqual(['*deep-04217*', 'train-*', null]);

        // The state filter: running jobs only (no name), then waiting jobs matching a pattern with `*`.
        await search.fill('');
        const state = page.getByLabel('State', { exact: true });
        await state.selectOption({ label: 'running' });
        await count.getByText('1 of 10,001 jobs', { exact: true }).waitFor();
        await page.getByRole('button', { name: `Open job ${DEEP_JOBS + 1} runner (running)`, exact: true }).waitFor();
        expect(await rows.count()).toBe(1);
        await state.selectOption({ label: 'Waiting (pending, preempted)' });
        await search.fill('deep-0999*');
        await count.getByText('10 of 10,001 jobs', { exact: true }).waitFor();
        expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-job'))))).toEqual([
          9990, 9991, 9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999,
        ]);
        const params = new URL(page.url()).searchParams;
        expect([params.get('q'), params.get('state')]).toEqual(['deep-0999*', 'pending,preempted']);

        // The URL round-trip: a reload (the tab keeps its token) shows the same filtered view.
        await page.reload();
        await count.getByText('10 of 10,001 jobs', { exact: true }).waitFor();
        expect([await search.inputValue(), await state.inputValue()]).toEqual(['deep-0999*', 'pending,preempted']);

        // Live updates keep the filter, the table's scroll position and the focused row: 500 waiting
        // jobs shown, scrolled down, a row's button focused; a submit through the API changes the count.
        await search.fill('deep-0*');
        await count.getByText('9,999 of 10,001 jobs · showing the first 50', { exact: true }).waitFor();
        for (let shown = 100; shown <= 500; shown += 50) {
          await page.getByRole('button', { name: 'Show 50 more', exact: true }).click();
          await count.getByText(`9,999 of 10,001 jobs · showing the first ${shown}`, { exact: true }).waitFor();
        }
        expect(await rows.count()).toBe(500);
        await page.getByRole('button', { name: /^Showing the first 500/ }).waitFor();
        const scrollArea = page.locator('#jobs-body');
        await scrollArea.evaluate((el) => {
          el.scrollTop = 3000;
        });
        const focusedButton = page.getByRole('button', { name: 'Open job 120 deep-00120 (pending)', exact: true });
        await focusedButton.focus();
        const scrolledTo = await scrollArea.evaluate((el) => el.scrollTop);
        expect(scrolledTo).toBeGreaterThan(2000);
        expect(
          (
            await api(
              server,
              'POST',
              '/api/v1/jobs',
              shellJob('sleep 1', { gpuMilli: 100 }, { tenant: 'deep', name: 'deep-0extra' }),
            )
          ).status,
        ).toBe(201);
        await count.getByText('10,000 of 10,002 jobs · showing the first 500', { exact: true }).waitFor();
        expect(await search.inputValue()).toBe('deep-0*');
        expect(await scrollArea.evaluate((el) => el.scrollTop)).toBe(scrolledTo);
        await expect
          .poll(() => focusedButton.evaluate((el) => el === el.ownerDocument.activeElement), { timeout: WAIT_MS })
          .toBe(true);

        // The GPU grid: 64 tiles, no horizontal scrolling at 1280 px, every tile inside the viewport's width.
        const tiles = page.locator('#gpu-list article[data-gpu]');
        await tiles.nth(63).waitFor();
        expect(await tiles.count()).toBe(64);
        // (A string: the test's TypeScript has no DOM types.)
        const layout = (await page.evaluate(`(() => {
      const root = document.documentElement;
      const boxes = [...document.querySelectorAll('#gpu-list article[data-gpu]')].map((t) => t.getBoundingClientRect());
      return {
        scrollWidth: root.scrollWidth,
        clientWidth: root.clientWidth,
        height: root.scrollHeight,
        maxRight: Math.max(...boxes.map((b) => b.right)),
        minWidth: Math.min(...boxes.map((b) => b.width)),
        rows: new Set(boxes.map((b) => Math.round(b.top))).size,
      };
    })()`)) as {
          scrollWidth: number;
          clientWidth: number;
          height: number;
          maxRight: number;
          minWidth: number;
          rows: number;
        };
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
        expect(layout.maxRight).toBeLessThanOrEqual(1280);
        expect(layout.minWidth).toBeGreaterThanOrEqual(130);
        expect(layout.rows).toBe(8); // 8 tiles to a row
        expect(layout.height).toBeLessThan(MAX_PAGE_HEIGHT_PX);
        // A tile says its index, model and mode at a glance; its details show while it holds focus.
        const tile0 = page.locator('article[data-gpu="0"]');
        await tile0.getByRole('heading', { name: 'GPU 0 A100-80GB', exact: true }).waitFor();
        expect(await tile0.locator('.gpu-head .badge').allTextContents()).toEqual(['MPS']);
        expect(await page.locator('article[data-gpu="63"] .gpu-head .badge').allTextContents()).toEqual(['free']);
        expect(await tile0.locator('.gpu-summary span').allTextContents()).toEqual(['400/1000 m', '32/80 GiB']);
        const details = tile0.locator('.gpu-details');
        expect(await details.isVisible()).toBe(false);
        await tile0.focus();
        await details.getByText('#10001 runner (default)', { exact: true }).waitFor();
        mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
        await page.screenshot({ path: join(ROOT, 'test-artifacts', 'dashboard-64-gpus.png'), fullPage: true });
        expect(consoleErrors).toEqual([]);
      },
    );

    it(
      "gives a tenant's token no tenant filter: it lists its own tenant's jobs, whatever the address " + 'names',
      async () => {
        const created = await api(server, 'POST', '/api/v1/tokens', {
          tenant: 'default',
          role: 'viewer',
          label: 'watcher',
        });
        expect(created.status).toBe(201);
        const tab = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
        try {
          await tab.goto(`${server.url}/?tenant=deep&q=r`);
          const token = tab.getByLabel('Token', { exact: true });
          await token.fill(created.body.token);
          await token.press('Enter');
          // Only job 10001 "runner" of tenant default holds an "r"; the deep jobs are not the viewer's.
          await tab.locator('#job-count').getByText('1 of 1 job', { exact: true }).waitFor();
          expect(
            await tab.locator('#jobs-body tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-job'))),
          ).toEqual([String(DEEP_JOBS + 1)]);
          expect(await tab.locator('#job-tenant-field').isHidden()).toBe(true);
        } finally {
          await tab.close();
        }
      },
    );
  },
);
