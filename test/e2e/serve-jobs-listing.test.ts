/**
 * End-to-end: `gpushare jobs` as a real child process against a real `gpushare serve` (its one
 * simulated GPU cordoned, so the jobs wait as `pending` and no job process starts): a listing
 * across several pages prints every job once and in order, as a table and as one JSON array, and
 * the selectors reach the server's store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupServe, cli, startServe, type ServeHandle } from './support/serve-harness.js';

let server: ServeHandle;
const NAMES = Array.from({ length: 13 }, (_, i) => (i % 3 === 0 ? `eval-${i}` : `train-${i}`));
const ids: number[] = [];

beforeAll(async () => {
  server = await startServe({ simulateGpus: '1xA100-80GB' });
  expect((await api(server, 'POST', '/api/v1/gpus/0/cordon')).status).toBe(200);
  for (const name of NAMES) {
    const answer = await api(server, 'POST', '/api/v1/jobs', {
      command: ['sleep', '30'],
      workingDirectory: server.dataDir,
      name,
      gpu: { gpuMilli: 500 },
    });
    expect(answer.status).toBe(201);
    ids.push(answer.body.id as number);
  }
  expect((await api(server, 'POST', `/api/v1/jobs/${ids[1]}/cancel`)).status).toBe(200);
});

afterAll(async () => {
  if (server) await cleanupServe(server);
});

describe('gpushare jobs against a real server', () => {
  it('prints every job once, in order, across pages of 4 (table and JSON)', () => {
    const table = cli(server, ['jobs', '--all', '--page-size', '4']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {7}NAME {14}TENANT {4}STATE {6}GPU {6}MODE {7}AGE\/REASON$/);
    expect(lines.slice(1).map((line) => Number(line.split(/ +/)[0]))).toEqual(ids);
    expect(lines.slice(1).map((line) => line.split(/ +/)[1])).toEqual(NAMES);
    const json = cli(server, ['jobs', '--all', '--page-size', '4', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const jobs = JSON.parse(json.stdout) as { id: number; name: string; state: string }[];
    expect(jobs.map((j) => j.id)).toEqual(ids);
    expect(jobs[1]!.state).toBe('cancelled');
  });

  it('selects by state, name pattern, since, limit and fields', () => {
    const run = (args: string[]): { id: number; name?: string }[] => {
      const result = cli(server, ['jobs', ...args, '-o', 'json']);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { id: number; name?: string }[];
    };
    expect(run(['--state', 'cancelled']).map((j) => j.id)).toEqual([ids[1]]);
    expect(run(['--name', 'eval-*', '--page-size', '2']).map((j) => j.name)).toEqual([
      'eval-0',
      'eval-3',
      'eval-6',
      'eval-9',
      'eval-12',
    ]);
    expect(run(['--since', '1h', '--state', 'pending,cancelled'])).toHaveLength(13);
    expect(run(['--since', '2100-01-01T00:00:00Z'])).toEqual([]);
    expect(run(['--all', '--limit', '5', '--page-size', '2', '--fields', 'name'])).toEqual(
      NAMES.slice(0, 5).map((name, i) => ({ id: ids[i], name })),
    );
  });

  it('refuses an unknown state with exit 2 before asking the server', () => {
    const result = cli(server, ['jobs', '--state', 'done']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--state takes one or more of pending, scheduled, running, preempted, succeeded, failed, cancelled',
    );
  });
});
