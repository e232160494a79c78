/**
 * The extender's signature on the assignments it writes: HMAC-SHA256, under a key only the
 * extender holds (a Secret mounted as a file), over the pod's UID and the assignment's content.
 * An assignment the extender did not write, or wrote for another pod (a copy of a valid annotation
 * onto a second pod), or changed by hand, does not verify. The value is `hmac-sha256:<base64url>`
 * in the assignment's `signature` field (pod-assignment.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PodAssignment } from './pod-assignment.js';

/** Prefix of a signature value: the algorithm. */
const ALGORITHM = 'hmac-sha256:';
/** Shortest key accepted, bytes (128 bits). */
export const MIN_ASSIGNMENT_KEY_BYTES = 16;

/** Signs and checks assignments with one key. */
export interface AssignmentSigner {
  /** `assignment` with its `signature` for the pod with UID `podUid` (any previous signature replaced). */
  sign(podUid: string, assignment: PodAssignment): PodAssignment;
  /** Whether `assignment` carries a valid signature for the pod with UID `podUid`. */
  verify(podUid: string, assignment: PodAssignment): boolean;
}

/**
 * A signer with `key` (the raw bytes of the key file; surrounding whitespace is not part of it).
 * @throws Error when the key is shorter than {@link MIN_ASSIGNMENT_KEY_BYTES} bytes
 */
export function assignmentSigner(key: Buffer): AssignmentSigner {
  const trimmed = Buffer.from(key.toString('latin1').trim(), 'latin1');
  if (trimmed.length < MIN_ASSIGNMENT_KEY_BYTES)
    throw new Error(
      `the assignment key must hold at least ${MIN_ASSIGNMENT_KEY_BYTES} bytes (got ${trimmed.length}); ` +
        'make one with: head -c 32 /dev/urandom | base64',
    );
  const mac = (podUid: string, assignment: PodAssignment): Buffer =>
    createHmac('sha256', trimmed).update(signedText(podUid, assignment)).digest();
  return {
    sign(podUid, assignment) {
      const { signature: _previous, ...content } = assignment;
      return { ...content, signature: ALGORITHM + mac(podUid, content).toString('base64url') };
    },
    verify(podUid, assignment) {
      const { signature, ...content } = assignment;
      if (signature === undefined || !signature.startsWith(ALGORITHM)) return false;
      const given = Buffer.from(signature.slice(ALGORITHM.length), 'base64url');
      const wanted = mac(podUid, content);
      return given.length === wanted.length && timingSafeEqual(given, wanted);
    },
  };
}

/** What is signed: a domain tag, the pod's UID and the assignment as canonical JSON (sorted keys). */
function signedText(podUid: string, content: Omit<PodAssignment, 'signature'>): string {
  return `gpushare.io/assignment v1\n${podUid}\n${canonicalJson(content)}`;
}

/** JSON with the keys of every object sorted, so the same content always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
