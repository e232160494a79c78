import { describe, expect, it } from 'vitest';
import { assignmentSigner } from './assignment-signature.js';
import type { PodAssignment } from './pod-assignment.js';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef');
const ASSIGNMENT: PodAssignment = {
  schema: 'v1',
  node: 'n1',
  mode: 'mps',
  gpus: [{ index: 0, uuid: 'GPU-n1-0', gpuMilli: 500, accountedGpuMilli: 500, gpuMemoryMiB: 40_960, mig: null }],
};

describe('assignmentSigner', () => {
  it('verifies its own signature for the pod it signed for, and nothing else', () => {
    const signer = assignmentSigner(KEY);
    const signed = signer.sign('uid-a', ASSIGNMENT);
    expect(signed.signature).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(signer.verify('uid-a', signed)).toBe(true);
    // A copy onto another pod, a changed share, no signature, another key, another algorithm.
    expect(signer.verify('uid-b', signed)).toBe(false);
    expect(signer.verify('uid-a', { ...signed, gpus: [{ ...signed.gpus[0]!, accountedGpuMilli: 1 }] })).toBe(false);
    expect(signer.verify('uid-a', ASSIGNMENT)).toBe(false);
    expect(assignmentSigner(Buffer.from('another key of 32 bytes, exactly')).verify('uid-a', signed)).toBe(false);
    expect(signer.verify('uid-a', { ...signed, signature: signed.signature!.replace('hmac-sha256', 'sha1') })).toBe(
      false,
    );
  });

  it('signs content, not key order or a previous signature; the key file may end with a newline', () => {
    const signer = assignmentSigner(KEY);
    const signed = signer.sign('uid-a', ASSIGNMENT);
    const reordered = JSON.parse(
      JSON.stringify({ signature: signed.signature, gpus: signed.gpus, mode: 'mps', node: 'n1', schema: 'v1' }),
    ) as PodAssignment;
    expect(signer.verify('uid-a', reordered)).toBe(true);
    expect(signer.sign('uid-a', signed).signature).toBe(signed.signature);
    expect(assignmentSigner(Buffer.concat([KEY, Buffer.from('\n')])).sign('uid-a', ASSIGNMENT).signature).toBe(
      signed.signature,
    );
  });

  it('refuses a key shorter than 16 bytes, saying how to make one', () => {
    expect(() => assignmentSigner(Buffer.from('short\n'))).toThrow(
      'the assignment key must hold at least 16 bytes (got 5); make one with: head -c 32 /dev/urandom | base64',
    );
  });
});
