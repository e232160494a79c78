/**
 * A preload (`node --import`) that records what a process loads, for test/e2e/cli-loads.test.ts:
 * each file the ES module loader loads (`file <url>`, as the loader asks for it) and, at exit, each
 * CommonJS file required (`file <url>`, in the order they were loaded: require.cache) and each Node
 * built-in module loaded (`builtin <name>`, from process.moduleLoadList), one a line, appended to
 * the file GPUSHARE_LOAD_LOG names. This module is also the loader hook it registers (its `load`
 * runs in the loader's thread).
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const LOG = process.env.GPUSHARE_LOAD_LOG;

/** The loader hook: notes a file before loading it as usual. */
export async function load(url, context, nextLoad) {
  if (LOG && url.startsWith('file:')) appendFileSync(LOG, `file ${url}\n`);
  return nextLoad(url, context);
}

if (isMainThread && LOG) {
  register(import.meta.url);
  process.on('exit', () => {
    const required = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.startsWith('/'));
    appendFileSync(LOG, required.map((f) => `file ${pathToFileURL(f).href}\n`).join(''));
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
    appendFileSync(LOG, builtins.map((m) => `builtin ${m.slice('NativeModule '.length)}\n`).join(''));
  });
}
