/**
 * What the built CLI loads (docs/cli.md, "What a command loads"): `bin/gpushare` run as a child
 * process under a preload that logs every file the module loader loads and the Node built-ins at
 * exit (support/module-load-log.mjs), against a fake server on 127.0.0.1 that counts requests.
 * `--version` loads the CLI's first file and commander only; `jobs` and `submit` one file more,
 * their own, which holds no server code, no zod and no yaml (by the bundle's metafile), and no
 * node:https for an http URL; `jobs` asks once for 1,200 jobs. A config file in another YAML form
 * loads the yaml parser's file, and an answer checked with zod the schemas' file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleGpu, sampleJob } from '../../src/adapters/http-client/testing/api-fixtures.js';
import { startFakeApiServer, type FakeApiServer } from '../../src/adapters/http-client/testing/fake-api-server.js';
import { jobListingAnswer } from '../../src/adapters/http-client/testing/job-listing-answer.js';
import { writeCliConfig } from '../../src/config/cli-config-write.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'gpushare');
const PRELOAD = pathToFileURL(join(ROOT, 'test', 'e2e', 'support', 'module-load-log.mjs')).href;
const JOBS = Array.from({ length: 1200 }, (_, i) =>
  sampleJob({ id: i + 1, name: `job-${i + 1}`, state: 'pending', placement: null, reason: 'waiting' }),
);
/** What every command loads first: the command, the code cache's hook, the CLI's first file. */
const FIRST_FILES = ['bin/gpushare', 'dist/main/code-cache.cjs', 'dist/main/gpushare.cjs'];
/** Sources no client command's start may load (server, store, scheduler, zod, yaml, logging). */
const NOT_AT_START = [
  /^node_modules\/(zod|yaml|pino|fastify|better-sqlite3|@kubernetes)\//,
  /^src\/(app|sim|host)\//,
  /^src\/adapters\/(?!http-client\/)/,
  /^src\/main\/(?!cli\.ts$)/,
  /^src\/contract\/api\.ts$/,
  /^src\/core\/(framework|pass|queue|preemption|mig)\//,
];

let dir: string;
let server: FakeApiServer;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-cli-loads-'));
  server = await startFakeApiServer((request) => {
    if (request.method === 'GET' && request.path === '/api/v1/jobs') return jobListingAnswer(JOBS, request);
    if (request.method === 'POST' && request.path === '/api/v1/jobs')
      return { status: 201, body: sampleJob({ id: 7, state: 'pending', placement: null }) };
    if (request.path === '/api/v1/gpus') return { status: 200, body: { gpus: [sampleGpu()] } };
    return { status: 404, body: { error: { code: 'NOT_FOUND', message: 'no such route' } } };
  });
  // The config gpushare serve writes: found through XDG_CONFIG_HOME, read without the yaml package.
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'config'), GPUSHARE_URL: '', GPUSHARE_TOKEN: '' };
  writeCliConfig({ url: server.url, token: 'gs_test' }, env);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What one run loaded: the checkout's files (relative paths) and the Node built-ins. */
interface Loads {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly files: string[];
  readonly builtins: Set<string>;
}

/** Runs the built CLI with `args` under the load log (asynchronously: the fake server answers meanwhile). */
function runLogged(args: readonly string[], runEnv: NodeJS.ProcessEnv = env): Promise<Loads> {
  const log = join(dir, `loads-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], {
      env: { ...runEnv, GPUSHARE_LOAD_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
      const root = pathToFileURL(ROOT).href;
      const files = lines
        .filter((l) => l.startsWith(`file ${root}`))
        .map((l) => l.slice(`file ${root}`.length))
        .filter((f, i, all) => !f.startsWith('test/') && all.indexOf(f) === i);
      const builtins = new Set(lines.filter((l) => l.startsWith('builtin ')).map((l) => l.slice('builtin '.length)));
      resolve({ code, stdout, stderr, files, builtins });
    });
  });
}

/** The sources the bundle put in `files` (dist/main/gpushare.meta.json, written by scripts/bundle.mjs). */
function sourcesOf(files: readonly string[]): string[] {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'main', 'gpushare.meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return files.flatMap((file) => {
    if (file === 'bin/gpushare' || file === 'dist/main/code-cache.cjs') return [];
    const output = meta.outputs[file];
    if (output === undefined) throw new Error(`${file} is not a file of the CLI bundle`);
    return Object.keys(output.inputs);
  });
}

const notAtStart = (sources: readonly string[]): string[] =>
  sources.filter((s) => NOT_AT_START.some((pattern) => pattern.test(s)));

describe('what a command of the built CLI loads', () => {
  it('--version: the first file and commander, no network module', async () => {
    const run = await runLogged(['--version']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.files).toEqual([...FIRST_FILES, 'dist/main/gpushare-chunks/commander.cjs']);
    expect(notAtStart(sourcesOf(run.files))).toEqual([]);
    expect(['http', 'https', 'tls'].filter((m) => run.builtins.has(m))).toEqual([]);
  });

  it('jobs: its own file besides, no server code, zod, yaml or node:https (http); one request', async () => {
    const before = server.requests.length;
    const run = await runLogged(['jobs']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1201);
    expect(run.files).toEqual([
      ...FIRST_FILES,
      'dist/main/gpushare-chunks/commander.cjs',
      'dist/main/gpushare-chunks/jobs-command.cjs',
    ]);
    const sources = sourcesOf(run.files);
    expect(sources).toContain('src/cli/jobs-command.ts');
    expect(notAtStart(sources)).toEqual([]);
    expect(['https', 'tls'].filter((m) => run.builtins.has(m))).toEqual([]);
    const requests = server.requests.slice(before);
    expect(requests.map((r) => `${r.method} ${r.path} limit=${r.query.get('limit')}`)).toEqual([
      'GET /api/v1/jobs limit=5000',
    ]);
  });

  it('submit: its own file besides, no server code, zod or yaml', async () => {
    const before = server.requests.length;
    const run = await runLogged(['submit', '--gpu', '0.5', '--', 'true']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('submitted job 7 (gpu 0.5 × 1, mode auto)\n7\n');
    expect(run.files).toEqual([
      ...FIRST_FILES,
      'dist/main/gpushare-chunks/commander.cjs',
      'dist/main/gpushare-chunks/submit-command.cjs',
    ]);
    expect(notAtStart(sourcesOf(run.files))).toEqual([]);
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/v1/jobs']);
  });

  it('loads the yaml parser for a config in another YAML form, the zod schemas for other answers', async () => {
    const config = join(dir, 'hand-written');
    mkdirSync(join(config, 'gpushare'), { recursive: true });
    writeFileSync(join(config, 'gpushare', 'config.yaml'), `# written by hand\nurl: "${server.url}"\ntoken: gs_test\n`);
    const run = await runLogged(['gpus'], { ...env, XDG_CONFIG_HOME: config });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('GPU 0');
    expect(run.files).toEqual([
      ...FIRST_FILES,
      'dist/main/gpushare-chunks/commander.cjs',
      'dist/main/gpushare-chunks/gpus-command.cjs',
      'dist/main/gpushare-chunks/parse-yaml.cjs',
      'dist/main/gpushare-chunks/answer-schemas.cjs',
    ]);
    expect(sourcesOf(run.files.slice(-2)).some((s) => s.startsWith('node_modules/yaml/'))).toBe(true);
    expect(sourcesOf(run.files.slice(-1)).some((s) => s.startsWith('node_modules/zod/'))).toBe(true);
  });
});
