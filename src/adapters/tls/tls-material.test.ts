import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CA_VALIDITY_DAYS, SERVER_CERT_VALIDITY_DAYS } from './local-ca.js';
import { ensureTlsMaterial, RENEW_BEFORE_DAYS, serverCertNames } from './tls-material.js';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-03-01T00:00:00Z');
const NAMES = ['127.0.0.1', '::1', 'localhost', 'gpu-box'];
let dir: string;
const file = (name: string): string => readFileSync(join(dir, name), 'utf8');
const request = (overrides: { names?: string[]; nowMs?: number } = {}) => ({
  dir,
  names: NAMES,
  caCommonName: 'gpushare local CA (gpu-box)',
  nowMs: NOW,
  ...overrides,
});

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'gpushare-tls-')), 'tls');
});
afterEach(() => {
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe('serverCertNames', () => {
  it('lists the listen address, the loopbacks, localhost and the host name once each; no wildcard address', () => {
    expect(serverCertNames('127.0.0.1', 'gpu-box')).toEqual(['127.0.0.1', '::1', 'localhost', 'gpu-box']);
    expect(serverCertNames('10.0.0.5', 'gpu-box')).toEqual(['10.0.0.5', '127.0.0.1', '::1', 'localhost', 'gpu-box']);
    expect(serverCertNames('0.0.0.0', 'LOCALHOST')).toEqual(['127.0.0.1', '::1', 'localhost']);
    expect(serverCertNames('::', 'gpu-box.example.org')).toEqual([
      '127.0.0.1',
      '::1',
      'localhost',
      'gpu-box.example.org',
    ]);
  });
});

describe('ensureTlsMaterial', () => {
  it('creates a P-256 CA and a server certificate it signs for every name; keys 0600, folder 0700', async () => {
    const material = await ensureTlsMaterial(request());
    expect([material.ca, material.server]).toEqual([
      { action: 'created', reason: 'missing' },
      { action: 'created', reason: 'missing' },
    ]);
    expect([
      statSync(dir).mode & 0o777,
      statSync(join(dir, 'ca.key')).mode & 0o777,
      statSync(join(dir, 'server.key')).mode & 0o777,
    ]).toEqual([0o700, 0o600, 0o600]);
    const ca = new X509Certificate(file('ca.crt'));
    const cert = new X509Certificate(file('server.crt'));
    expect([ca.subject, ca.ca, ca.publicKey.asymmetricKeyDetails?.namedCurve]).toEqual([
      'CN=gpushare local CA (gpu-box)',
      true,
      'prime256v1',
    ]);
    expect([cert.subject, cert.issuer, cert.ca, cert.verify(ca.publicKey)]).toEqual([
      'CN=127.0.0.1',
      'CN=gpushare local CA (gpu-box)',
      false,
      true,
    ]);
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, DNS:gpu-box');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(Date.parse(ca.validTo) - NOW).toBe(CA_VALIDITY_DAYS * DAY_MS);
    expect(Date.parse(cert.validTo) - NOW).toBe(SERVER_CERT_VALIDITY_DAYS * DAY_MS);
    expect([material.caCertPem, material.serverCertPem, material.serverKeyPem]).toEqual([
      file('ca.crt'),
      file('server.crt'),
      file('server.key'),
    ]);
  });

  it('reuses both at the next start, byte for byte', async () => {
    await ensureTlsMaterial(request());
    const before = ['ca.crt', 'ca.key', 'server.crt', 'server.key'].map(file);
    const again = await ensureTlsMaterial(request({ nowMs: NOW + 100 * DAY_MS }));
    expect([again.ca, again.server]).toEqual([
      { action: 'reused', reason: 'valid' },
      { action: 'reused', reason: 'valid' },
    ]);
    expect(['ca.crt', 'ca.key', 'server.crt', 'server.key'].map(file)).toEqual(before);
  });

  it('renews the server certificate (same CA) for a new name, and when it nears its end', async () => {
    await ensureTlsMaterial(request());
    const ca = file('ca.crt');
    const moved = await ensureTlsMaterial(request({ names: ['10.0.0.5', ...NAMES] }));
    expect([moved.ca.action, moved.server]).toEqual([
      'reused',
      { action: 'renewed', reason: 'does not name 10.0.0.5' },
    ]);
    expect(new X509Certificate(file('server.crt')).subjectAltName).toContain('IP Address:10.0.0.5');
    const late = NOW + (SERVER_CERT_VALIDITY_DAYS - RENEW_BEFORE_DAYS + 1) * DAY_MS;
    const renewed = await ensureTlsMaterial(request({ names: ['10.0.0.5', ...NAMES], nowMs: late }));
    expect([renewed.ca.action, renewed.server.action, renewed.server.reason]).toEqual([
      'reused',
      'renewed',
      expect.stringMatching(/^expires 2027-/),
    ]);
    expect(file('ca.crt')).toBe(ca);
  });

  it('remakes the CA and the server certificate when the CA expires or its key is replaced', async () => {
    await ensureTlsMaterial(request());
    const oldCa = file('ca.crt');
    const expired = await ensureTlsMaterial(request({ nowMs: NOW + CA_VALIDITY_DAYS * DAY_MS }));
    expect([expired.ca.action, expired.ca.reason, expired.server]).toEqual([
      'renewed',
      expect.stringMatching(/^expires /),
      { action: 'renewed', reason: 'new CA' },
    ]);
    expect(file('ca.crt')).not.toBe(oldCa);
    writeFileSync(join(dir, 'ca.key'), file('server.key'));
    const mismatched = await ensureTlsMaterial(request({ nowMs: NOW + CA_VALIDITY_DAYS * DAY_MS }));
    expect(mismatched.ca).toEqual({ action: 'renewed', reason: 'the key does not match the certificate' });
    expect(new X509Certificate(file('server.crt')).verify(new X509Certificate(file('ca.crt')).publicKey)).toBe(true);
  });
});
