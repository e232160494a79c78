import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCliConfig } from '../config/cli-config.js';
import { resolveConnection } from './connection.js';
import { UsageError } from './exit-codes.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-connection-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('resolveConnection', () => {
  it('takes flags over environment over the config file, each setting on its own', () => {
    const env = { XDG_CONFIG_HOME: dir };
    writeCliConfig({ url: 'http://file:1', token: 'file-token' }, env);
    expect(resolveConnection({}, { env })).toEqual({ url: 'http://file:1', token: 'file-token' });
    const withEnv = { ...env, GPUSHARE_URL: 'http://env:2/', GPUSHARE_TOKEN: 'env-token' };
    expect(resolveConnection({}, { env: withEnv })).toEqual({ url: 'http://env:2', token: 'env-token' });
    expect(resolveConnection({ url: 'http://flag:3' }, { env: withEnv })).toEqual({ url: 'http://flag:3', token: 'env-token' });
    expect(resolveConnection({ token: 'flag-token' }, { env })).toEqual({ url: 'http://file:1', token: 'flag-token' });
  });

  it('does not read the config file when flags or environment give both', () => {
    mkdirSync(join(dir, 'gpushare'));
    writeFileSync(join(dir, 'gpushare', 'config.yaml'), '[broken');
    expect(resolveConnection({ url: 'http://a:1', token: 't' }, { env: { XDG_CONFIG_HOME: dir } })).toEqual({ url: 'http://a:1', token: 't' });
  });

  it('tells the user to start `gpushare serve` or set GPUSHARE_URL when nothing is configured', () => {
    const env = { XDG_CONFIG_HOME: dir };
    expect(() => resolveConnection({}, { env })).toThrow(UsageError);
    expect(() => resolveConnection({}, { env })).toThrow(
      `no gpushare server configured: start one with \`gpushare serve\` (it writes ${join(dir, 'gpushare', 'config.yaml')}), or set GPUSHARE_URL and GPUSHARE_TOKEN, or pass --url and --token`);
  });

  it('names the missing token, and rejects a URL that is not http(s)', () => {
    const env = { XDG_CONFIG_HOME: dir, GPUSHARE_URL: 'http://h:1' };
    expect(() => resolveConnection({}, { env })).toThrow(/^no API token for http:\/\/h:1: pass --token, set GPUSHARE_TOKEN/);
    expect(() => resolveConnection({ url: 'h:1', token: 't' }, { env })).toThrow(/^--url \/ GPUSHARE_URL: 'h:1' is not an http or https URL/);
  });
});
