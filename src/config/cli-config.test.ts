import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCliConfig } from './cli-config-write.js';
import { cliConfigPath, CliConfigError, readCliConfig } from './cli-config.js';

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpushare-cli-config-'));
  env = { XDG_CONFIG_HOME: join(dir, 'xdg'), HOME: join(dir, 'home') };
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('cliConfigPath', () => {
  it('uses $XDG_CONFIG_HOME when it is absolute', async () => {
    expect(cliConfigPath({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/u' })).toBe('/x/cfg/gpushare/config.yaml');
  });

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset, empty or relative', async () => {
    expect(cliConfigPath({ HOME: '/home/u' })).toBe('/home/u/.config/gpushare/config.yaml');
    expect(cliConfigPath({ XDG_CONFIG_HOME: '', HOME: '/home/u' })).toBe('/home/u/.config/gpushare/config.yaml');
    expect(cliConfigPath({ XDG_CONFIG_HOME: 'rel/cfg', HOME: '/home/u' })).toBe('/home/u/.config/gpushare/config.yaml');
  });
});

describe('readCliConfig', () => {
  it('returns an empty config when the file does not exist', async () => {
    expect(await readCliConfig(env)).toEqual({});
  });

  it('returns an empty config for an empty file and ignores unknown keys', async () => {
    mkdirSync(join(dir, 'xdg', 'gpushare'), { recursive: true });
    writeFileSync(cliConfigPath(env), '');
    expect(await readCliConfig(env)).toEqual({});
    writeFileSync(cliConfigPath(env), 'url: http://127.0.0.1:8750\ntoken: gs_abc\nextra: 1\n');
    expect(await readCliConfig(env)).toEqual({ url: 'http://127.0.0.1:8750', token: 'gs_abc' });
  });

  it.each([
    ['url: [unclosed', 'not valid YAML'],
    ['- a\n- b\n', 'expected a YAML mapping with keys url and token'],
    ['just text', 'expected a YAML mapping with keys url and token'],
    ['url: 8750\n', 'url must be a non-empty string'],
    ['token: ""\n', 'token must be a non-empty string'],
    [
      'ca: /etc/ca.crt\n',
      'ca must be the PEM text of a CA certificate (-----BEGIN CERTIFICATE----- ...); for a file use caFile: PATH',
    ],
    ['caFile: 7\n', 'caFile must be a non-empty string'],
  ])('rejects %j with an error naming the file', async (text, reason) => {
    mkdirSync(join(dir, 'xdg', 'gpushare'), { recursive: true });
    writeFileSync(cliConfigPath(env), text);
    await expect(readCliConfig(env)).rejects.toThrow(CliConfigError);
    await expect(readCliConfig(env)).rejects.toThrow(`config file ${cliConfigPath(env)}: ${reason}`);
  });
});

describe('writeCliConfig', () => {
  it('creates the folder with mode 0700 and the file with mode 0600, and reads back', async () => {
    const path = writeCliConfig({ url: 'http://127.0.0.1:8750', token: 'gs_secret' }, env);
    expect(path).toBe(join(dir, 'xdg', 'gpushare', 'config.yaml'));
    expect(mode(join(dir, 'xdg', 'gpushare'))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(await readCliConfig(env)).toEqual({ url: 'http://127.0.0.1:8750', token: 'gs_secret' });
    expect(readdirSync(join(dir, 'xdg', 'gpushare'))).toEqual(['config.yaml']);
  });

  it('writes the CA as PEM text under ca (a block scalar), reads it back; resolves caFile in its folder', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBkTCCATeg\n-----END CERTIFICATE-----\n';
    const path = writeCliConfig({ url: 'https://127.0.0.1:8750', token: 'gs_secret', ca: pem }, env);
    expect(readFileSync(path, 'utf8')).toBe(
      `url: https://127.0.0.1:8750\ntoken: gs_secret\nca: |\n  -----BEGIN CERTIFICATE-----\n  ` +
        `MIIBkTCCATeg\n  -----END CERTIFICATE-----\n`,
    );
    expect(await readCliConfig(env)).toEqual({ url: 'https://127.0.0.1:8750', token: 'gs_secret', ca: pem });
    writeCliConfig({ url: 'http://127.0.0.1:8750', token: 'gs_secret', ca: null }, env);
    expect(await readCliConfig(env)).toEqual({ url: 'http://127.0.0.1:8750', token: 'gs_secret' });
    writeFileSync(path, 'url: https://h:1\ntoken: t\ncaFile: certs/ca.crt\n');
    expect(await readCliConfig(env)).toEqual({
      url: 'https://h:1',
      token: 't',
      caFile: join(dir, 'xdg', 'gpushare', 'certs', 'ca.crt'),
    });
  });

  it('ends with mode 0600 when the file existed with a wider mode, and replaces its content', async () => {
    mkdirSync(join(dir, 'xdg', 'gpushare'), { recursive: true });
    const path = cliConfigPath(env);
    writeFileSync(path, 'url: http://old\ntoken: old\n');
    chmodSync(path, 0o644);
    writeCliConfig({ url: 'http://new:1', token: 'gs_new' }, env);
    expect(mode(path)).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toContain('gs_new');
    expect(await readCliConfig(env)).toEqual({ url: 'http://new:1', token: 'gs_new' });
  });

  it('uses ~/.config without XDG_CONFIG_HOME', async () => {
    const path = writeCliConfig({ url: 'http://h:1', token: 't' }, { HOME: join(dir, 'home') });
    expect(path).toBe(join(dir, 'home', '.config', 'gpushare', 'config.yaml'));
    expect(mode(path)).toBe(0o600);
  });

  it('throws a CliConfigError naming the file when the folder cannot be created', async () => {
    writeFileSync(join(dir, 'blocker'), '');
    const blocked = { XDG_CONFIG_HOME: join(dir, 'blocker') };
    expect(() => writeCliConfig({ url: 'http://h:1', token: 't' }, blocked)).toThrow(
      `config file ${join(dir, 'blocker', 'gpushare', 'config.yaml')}: cannot write it`,
    );
  });
});
