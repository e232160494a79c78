/**
 * The web dashboard in a real browser: Debian's chromium driven by playwright-core against a real
 * `gpushare serve` with one plain and one MIG A100-80GB (simulated). Logs in with the keyboard,
 * submits a job through the form and two through the API, and checks by accessible name what the
 * page draws: job segments on GPU 0 with their exact milli-GPU and memory, the MIG job in GPU 1's
 * slice layout with its profile, the jobs list, a job's logs, and a live update (a job cancelled
 * through the API leaves its GPU without a reload), a job's QoS badge changing live after a report
 * and its QoS section in the job panel, and tenant colours (spread hues, AA contrast). The page is
 * served over HTTPS: chromium trusts exactly the server's certificate (its public key's SHA-256,
 * `--ignore-certificate-errors-spki-list`), every other certificate error still fails. Saves a screenshot to
 * test-artifacts/dashboard.png and docs/images/dashboard.png.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLocalCa, issueServerCert } from '../../src/adapters/tls/local-ca.js';
import { requireTool } from '../support/required-tool.js';
import { api, cleanupServe, shellJob, startServe, waitForJob, type ServeHandle } from './support/serve-harness.js';
import { WAIT_MS } from '../../src/testing/deadlines.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '..', '..');
const ARTIFACT = join(ROOT, 'test-artifacts', 'dashboard.png');
const DOC_IMAGE = join(ROOT, 'docs', 'images', 'dashboard.png');
const LOG_LINE = 'dashboard-log-line-4242';
/**
 * base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as chromium's --ignore-certificate-errors-spki-list takes it.
 */
const spkiHash = (certPem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

/** The server certificate of a started server (written under its data directory). */
const serverCertPath = (server: { dataDir: string }): string => join(server.dataDir, 'data', 'tls', 'server.crt');

/** MiB as the dashboard writes it (web/js/dom.js formatMiB). */
const gib = (mib: number): string => `${Number.isInteger(mib / 1024) ? mib / 1024 : (mib / 1024).toFixed(1)} GiB`;

describe.skipIf(!requireTool(CHROMIUM, 'apt-get install chromium'))('web dashboard in chromium', () => {
  let server: ServeHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // One usage sample a second, so the chart has points within the test.
    server = await startServe({
      simulateGpus: '1xA100-80GB,1xA100-80GB:mig',
      config: { usageHistoryIntervalSeconds: 1, usagePollIntervalSeconds: 1 },
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

  it('logs in, draws shared and MIG GPUs with their jobs, shows logs and live updates', async () => {
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await page.goto(`${server.url}/`);

    // A wrong token shows the server's message; the right one, typed and sent with Enter, logs in.
    const token = page.getByLabel('Token', { exact: true });
    await token.pressSequentially('gs_wrong');
    await token.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'token' }).waitFor();
    await token.fill('');
    await token.pressSequentially(server.adminToken);
    await token.press('Enter');
    await page.getByRole('heading', { name: 'GPUs', exact: true }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await page.evaluate(() => ((globalThis as unknown as { noReload: number }).noReload = 1));

    // Job 1 through the form: 0.4 of a GPU, echoing a known line.
    await page.getByLabel('Command').fill(`echo ${LOG_LINE}; sleep 600`);
    await page.getByLabel('Name', { exact: true }).fill('form-job');
    await page.getByLabel('GPU', { exact: true }).fill('0.4');
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.getByRole('status').filter({ hasText: 'Submitted job 1 form-job' }).waitFor();
    // Job 2 and job 3 through the API: 0.3 of GPU 0 (same mode, mps) and a MIG instance on GPU 1.
    expect(
      (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('sleep 600', { gpuMilli: 300 }, { tenant: 'default', name: 'api-job' }),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('sleep 600', { gpuMilli: 300, mode: 'mig' }, { tenant: 'default', name: 'mig-job' }),
        )
      ).status,
    ).toBe(201);
    for (const id of [1, 2, 3]) await waitForJob(server, id, (j) => j.state === 'running');
    const formJob = await waitForJob(server, 1, () => true);
    expect(formJob.placement.gpus).toMatchObject([{ index: 0, gpuMilli: 400, gpuMemoryMiB: 32768 }]);
    const migJob = await waitForJob(server, 3, () => true);
    expect(migJob.placement.gpus[0]).toMatchObject({ index: 1, migProfile: '3g.40gb' });
    const migOnGpu = (await api(server, 'GET', '/api/v1/gpus')).body.gpus[1].jobs[0];
    expect(migOnGpu).toMatchObject({ id: 3, migProfile: '3g.40gb', migSlices: 4 });

    // GPU 0: both shares, named with their exact milli-GPU and memory; the free rest.
    const gpu0 = page.getByRole('group', { name: 'GPU 0 compute: 700 of 1000 milli-GPU allocated', exact: true });
    await gpu0
      .getByRole('button', { name: 'GPU 0 A100-80GB: job 1 form-job (default) 400 milli-GPU, 32 GiB', exact: true })
      .waitFor();
    await gpu0
      .getByRole('button', { name: 'GPU 0 A100-80GB: job 2 api-job (default) 300 milli-GPU, 24 GiB', exact: true })
      .waitFor();
    await gpu0.getByRole('img', { name: 'GPU 0 A100-80GB: free 300 milli-GPU', exact: true }).waitFor();
    // GPU 1 (MIG): the job's GPU instance in the slice layout, with its profile name.
    const last = migOnGpu.migStart + migOnGpu.migSlices - 1;
    const migLayout = page.getByRole('group', { name: /^GPU 1 MIG layout: 8 memory slices, 1 instance\(s\) in use/ });
    const gi = migLayout.getByRole('button', {
      name:
        `GPU 1 A100-80GB: job 3 mig-job (default) MIG 3g.40gb, slices ${migOnGpu.migStart}–${last}, ` +
        `${gib(migOnGpu.gpuMemoryMiB)}`,
      exact: true,
    });
    await gi.waitFor();
    expect(await gi.textContent()).toContain('3g.40gb');
    // The jobs list shows all three running.
    for (const [id, name] of [
      [1, 'form-job'],
      [2, 'api-job'],
      [3, 'mig-job'],
    ] as const) {
      await page.getByRole('button', { name: `Open job ${id} ${name} (running)`, exact: true }).waitFor();
    }
    // Usage history: GPU 0 holds 700 and GPU 1 3 of 7 slices (429 milli-GPU): (700 + 429) / 2000.
    const deadline = Date.now() + WAIT_MS;
    let latest: { allocationRatio: number } | undefined;
    while (Date.now() < deadline) {
      latest = (await api(server, 'GET', '/api/v1/usage/history')).body.samples.at(-1);
      if (latest?.allocationRatio === 0.5645) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(latest?.allocationRatio).toBe(0.5645);
    await page.getByText(/^Now: 56\.\d% of schedulable GPU compute allocated/).waitFor();
    // A tile's details (hidden until it is hovered or focused; its accessible description).
    // Simulated measured use follows the allocation: 700 milli-GPU → 70%.
    const fact = (gpu: number, name: string) =>
      page
        .locator(`#gpu-${gpu}-details > div`)
        .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
        .locator('dd');
    await expect.poll(() => fact(0, 'utilization').textContent(), { timeout: WAIT_MS }).toBe('70% (simulated)');
    await expect
      .poll(() => fact(1, 'memory used').textContent(), { timeout: WAIT_MS })
      .toBe(`${gib(migOnGpu.gpuMemoryMiB)} of 80 GiB`);
    expect(await fact(1, 'mode').textContent()).toBe('MIG');
    // What enforces the shares: MIG in hardware; GPU 0's MPS shares as the API says (per process with a daemon, else
    // not enforced).
    expect(await fact(1, 'enforced').textContent()).toBe('memory hardware (MIG), compute hardware (MIG)');
    const gpu0Enforcement = (await api(server, 'GET', '/api/v1/gpus')).body.gpus[0].enforcement;
    const mpsText =
      gpu0Enforcement.gpuMemory === 'driver-per-process'
        ? 'memory per process (MPS), compute per process (MPS)'
        : 'memory not enforced, compute not enforced';
    expect(gpu0Enforcement).toEqual(
      mpsText.startsWith('memory per')
        ? { gpuMemory: 'driver-per-process', compute: 'driver-per-process' }
        : { gpuMemory: 'not-enforced', compute: 'not-enforced' },
    );
    expect(await fact(0, 'enforced').textContent()).toBe(mpsText);
    // Hovering a tile shows its details.
    await page.locator('article[data-gpu="1"] .gpu-summary').hover();
    await page
      .locator('#gpu-1-details')
      .getByText('memory hardware (MIG), compute hardware (MIG)', { exact: true })
      .waitFor();
    await page.mouse.move(0, 0);
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    // The README's picture is refreshed only on request (UPDATE_DOC_IMAGES=1), so test runs leave the tree clean.
    if (process.env.UPDATE_DOC_IMAGES === '1') copyFileSync(ARTIFACT, DOC_IMAGE);
    expect(statSync(ARTIFACT).size).toBeGreaterThan(10_000);

    // Keyboard: Enter on job 1's segment opens its panel with the logs; Escape closes it.
    const segment = gpu0.getByRole('button', { name: /^GPU 0 A100-80GB: job 1 form-job/ });
    await segment.focus();
    // Live updates (a usage sample a second) re-render the GPUs; focus stays on the same segment.
    // Wait for the next live update of the page (any DOM change), not for a fixed time.
    await page.evaluate(`new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no live update within ${WAIT_MS} ms')), ${WAIT_MS});
      new MutationObserver((_, observer) => { observer.disconnect(); clearTimeout(timer); resolve(); })
        .observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })`);
    // The first change seen may be mid-render: wait (bounded) until the page settles with focus kept.
    await expect
      .poll(() => segment.evaluate((el) => el === el.ownerDocument.activeElement), { timeout: WAIT_MS })
      .toBe(true);
    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog', { name: 'Job 1 form-job', exact: true });
    await panel.waitFor();
    await panel.getByLabel('Output (stdout) of job 1').filter({ hasText: LOG_LINE }).waitFor();
    await panel.getByText(`${mpsText} (simulated GPU)`, { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    // Focus returns to the segment (a live update may re-render it in between: it keeps the focus).
    await expect
      .poll(() => segment.evaluate((el) => el === el.ownerDocument.activeElement), { timeout: WAIT_MS })
      .toBe(true);

    // Live: cancelling job 2 through the API removes it from GPU 0 without a reload.
    expect((await api(server, 'POST', '/api/v1/jobs/2/cancel')).status).toBe(200);
    await gpu0.getByRole('button', { name: /job 2 api-job/ }).waitFor({ state: 'detached', timeout: WAIT_MS });
    await page.getByRole('group', { name: 'GPU 0 compute: 400 of 1000 milli-GPU allocated', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Open job 2 api-job (cancelled)', exact: true }).waitFor();

    // QoS: job 4 declares a step target; its row says so in words, and a report turns it to "QoS ok" live.
    expect(
      (
        await api(
          server,
          'POST',
          '/api/v1/jobs',
          shellJob('sleep 600', { gpuMilli: 100 }, { tenant: 'default', name: 'qos-job', qos: { stepSeconds: 0.5 } }),
        )
      ).status,
    ).toBe(201);
    await waitForJob(server, 4, (j) => j.state === 'running');
    const qosRow = page.locator('tr[data-job="4"]');
    await qosRow.getByRole('button', { name: 'Open job 4 qos-job (running)', exact: true }).waitFor();
    await qosRow.getByText('QoS: no report yet', { exact: true }).waitFor();
    expect(await page.locator('tr[data-job="1"]').getByRole('cell').nth(4).textContent()).toBe('—');
    const report = await api(server, 'POST', '/api/v1/jobs/4/qos-reports', { stepSeconds: 0.4 });
    expect(report.status).toBe(200);
    expect(report.body.status).toMatchObject([
      { kind: 'step', targetSeconds: 0.5, lastObservedSeconds: 0.4, reports: 1, violating: false },
    ]);
    await qosRow.getByText('QoS ok', { exact: true }).waitFor();
    await qosRow.getByText('QoS: no report yet', { exact: true }).waitFor({ state: 'detached' });
    // The job panel lists the target with its latest value, state and violations.
    await qosRow.getByRole('button', { name: 'Open job 4 qos-job (running)', exact: true }).click();
    const qosPanel = page.getByRole('dialog', { name: 'Job 4 qos-job', exact: true });
    const qosSection = qosPanel.getByRole('region', { name: 'QoS', exact: true });
    const stepRow = qosSection
      .getByRole('table', { name: 'QoS targets of job 4', exact: true })
      .getByRole('row', { name: /^step 0\.5 s 0\.4 s/ });
    await stepRow.waitFor();
    expect(await stepRow.getByRole('cell').allTextContents()).toEqual([
      expect.stringMatching(/^0\.5 s$/),
      expect.stringMatching(/^0\.4 s \(.+, 1 report\(s\)\)$/),
      'ok',
      '0',
    ]);
    await page.keyboard.press('Escape');
    await qosPanel.waitFor({ state: 'hidden' });

    // Tenant colours: names that differ in one character get clearly different hues, and the
    // white segment text keeps WCAG AA contrast on every one.
    const colours =
      (await page.evaluate(`import('/js/dom.js').then((m) => ['team-a', 'team-b', 'team-c', 'default'].map((t) => {
      const [hue, sat, light] = m.tenantColor(t).match(/[\\d.]+/g).map(Number);
      return { hue, contrast: m.contrastWithWhite(hue, sat / 100, light / 100) };
    }))`)) as { hue: number; contrast: number }[];
    const hueGap = (a: number, b: number): number => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));
    for (const [a, b] of [
      [0, 1],
      [1, 2],
      [0, 2],
    ] as const)
      expect(hueGap(colours[a]!.hue, colours[b]!.hue)).toBeGreaterThan(60);
    for (const c of colours) expect(c.contrast).toBeGreaterThanOrEqual(4.5);

    expect(await page.evaluate(() => (globalThis as unknown as { noReload?: number }).noReload)).toBe(1);
    expect(consoleErrors.filter((e) => !e.includes('401'))).toEqual([]);
  });

  it(
    "still refuses a certificate other than the server's (the trust is one public key, not a blanket " + 'ignore)',
    async () => {
      const ca = await createLocalCa('another CA', Date.now());
      const other = await issueServerCert(ca, ['127.0.0.1'], Date.now());
      const impostor = createHttpsServer({ key: other.keyPem, cert: other.certPem }, (_, res) => res.end('impostor'));
      await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = impostor.address() as AddressInfo;
        const probe = await browser.newPage();
        await expect(probe.goto(`https://127.0.0.1:${port}/`)).rejects.toThrow(/net::ERR_CERT_AUTHORITY_INVALID/);
        await probe.close();
      } finally {
        await new Promise<void>((resolve) => impostor.close(() => resolve()));
      }
    },
  );
});
