/**
 * Test helpers of the process adapter (not built into dist): a compiled copy of the adapter
 * (the supervisor must run as plain JavaScript in its own node process), job directories, and
 * bounded waits for outcomes.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { ProcessHandle, ProcessLauncher, ProcessOutcome } from '../../../app/ports/process-launcher.js';
import { detectCgroupLayout } from '../cgroup-layout.js';
import { waitUntil } from '../wait-until.js';

const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
let compiledDir: string | null = null;

/**
 * Transpiles every non-test module of src/adapters/process to JavaScript in a temporary
 * directory (once per test process) and returns that directory: `supervisor.js` and
 * `child-process-launcher.js` are there.
 */
export function compiledProcessAdapter(): string {
  if (compiledDir !== null) return compiledDir;
  const out = mkdtempSync(join(tmpdir(), 'gpushare-process-adapter-'));
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  for (const name of readdirSync(SOURCE_DIR)) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    const source = readFileSync(join(SOURCE_DIR, name), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      fileName: name,
    });
    writeFileSync(join(out, name.replace(/\.ts$/, '.js')), outputText);
  }
  compiledDir = out;
  return out;
}

/** Path of the compiled supervisor. */
export function compiledSupervisorPath(): string {
  return join(compiledProcessAdapter(), 'supervisor.js');
}

const temporaryDirectories: string[] = [];

/** A fresh empty job directory under the system temp directory (removed by {@link removeTemporaryDirectories}). */
export function makeJobDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpushare-job-'));
  temporaryDirectories.push(dir);
  return dir;
}

/** Removes the job directories and the compiled adapter made by this test process. */
export function removeTemporaryDirectories(): void {
  for (const dir of temporaryDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
  if (compiledDir !== null) rmSync(compiledDir, { recursive: true, force: true });
  compiledDir = null;
}

/** A cgroup parent name private to this test process, so parallel test files never collide. */
export function testCgroupParent(label: string): string {
  return `gpushare-test-${label}-${process.pid}`;
}

/** Removes the (empty) test cgroup parent directories made under `cgroupParent`. */
export function removeTestCgroupParent(cgroupParent: string): void {
  const layout = detectCgroupLayout();
  for (const mount of [layout.v2Mount, ...Object.values(layout.v1Mounts)]) {
    if (mount === null) continue;
    const dir = join(mount, cgroupParent);
    try {
      if (existsSync(dir)) rmdirSync(dir);
    } catch {
      // a leftover child: visible in the failing test
    }
  }
}

/** Waits up to `timeoutMs` for the outcome of `handle`; throws when none appears. */
export async function waitForOutcome(launcher: ProcessLauncher, handle: ProcessHandle, timeoutMs = 10_000): Promise<ProcessOutcome> {
  let outcome: ProcessOutcome | null = null;
  await waitUntil(() => (outcome = launcher.readOutcome(handle)) !== null, timeoutMs, 10);
  if (outcome === null) throw new Error(`no outcome in ${handle.outcomePath} after ${timeoutMs} ms`);
  return outcome;
}

/** The environment for test jobs: PATH only. */
export const TEST_ENV: Readonly<Record<string, string>> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
