/**
 * Serves the web dashboard: the static files of `web/` at `/` (index.html, style.css, js/) and the
 * chart library uPlot (the `uplot` npm package) under `/assets/vendor/`. No token is needed: the
 * files hold no data; the page asks for a token and reads the API with it.
 *
 * `web/` is found relative to the package root, which is three levels above this module both in
 * `src/adapters/http/` (tests) and in `dist/adapters/http/` (the built and installed server).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Files of the uplot package served under `/assets/vendor/`. */
export const VENDOR_FILES = ['uPlot.iife.min.js', 'uPlot.min.css'] as const;

/**
 * Content-Security-Policy of the dashboard's files: scripts, styles and API calls from this origin
 * only, no frames.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Absolute path of the dashboard's `web/` directory. @throws Error when it is missing (a broken install) */
export function dashboardWebRoot(): string {
  const root = fileURLToPath(new URL('../../../web/', import.meta.url));
  if (!existsSync(`${root}index.html`))
    throw new Error(`the web dashboard's files are missing: ${root}index.html not found (reinstall gpushare)`);
  return root;
}

/** Directory holding uPlot's built files, resolved from the installed `uplot` package. */
export function uplotDistDir(): string {
  return dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));
}

/**
 * Registers the dashboard's static routes on `app` (`GET /`, `/index.html`, `/style.css`, `/js/…`, `/assets/vendor/…`).
 */
export async function registerDashboard(app: FastifyInstance): Promise<void> {
  const setHeaders = (res: { setHeader(name: string, value: string): unknown }): void => {
    res.setHeader('content-security-policy', DASHBOARD_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
  };
  // wildcard: false registers one route per file found at start, so unknown paths stay plain 404s.
  await app.register(fastifyStatic, {
    root: dashboardWebRoot(),
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    setHeaders,
    cacheControl: true,
    maxAge: 0,
  });
  // The chart library's two files, each its own route: the package's other files are not served.
  const vendorRoot = uplotDistDir();
  for (const file of VENDOR_FILES) {
    app.get(`/assets/vendor/${file}`, { schema: { hide: true } }, (_request, reply) => {
      setHeaders({ setHeader: (name, value) => reply.header(name, value) });
      return reply.sendFile(file, vendorRoot, { maxAge: 3_600_000 });
    });
  }
}
