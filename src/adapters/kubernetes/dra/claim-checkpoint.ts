/**
 * The driver's checkpoint: the claims it has prepared on this node (UID → devices, CDI ids, the
 * spec file written, the MIG instances it created), in one JSON file under `--state-dir`, written
 * atomically (atomic-file.ts) after every change and read at start, so that a restarted driver
 * answers a prepare of a claim it already prepared with the same devices and creates nothing
 * again, and an unprepare after a restart still removes what the claim had.
 *
 * A file that cannot be read as a checkpoint is refused (CheckpointError), never overwritten: the
 * driver stops with the file's path and the problem, and the claims it names are not lost.
 * Temporary files of an interrupted write are ignored (and removed at load).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { removeLeftoverTemporaries, writeFileAtomic } from '../atomic-file.js';

/** File name of the checkpoint in the state directory. */
export const CHECKPOINT_FILE = 'checkpoint.json';
/** Version of the checkpoint's format. */
export const CHECKPOINT_VERSION = 1;

const deviceSchema = z
  .object({
    request: z.string().min(1),
    pool: z.string().min(1),
    device: z.string().min(1),
    /** The allocation's shareID, null for devices given whole. */
    shareId: z.string().min(1).nullable(),
    cdiDeviceIds: z.array(z.string().min(1)),
  })
  .strict();

const migCreatedSchema = z
  .object({
    gpuIndex: z.number().int().nonnegative(),
    profileId: z.number().int().nonnegative(),
    start: z.number().int().nonnegative(),
    gpuInstanceId: z.number().int().nonnegative(),
  })
  .strict();

const claimSchema = z
  .object({
    namespace: z.string(),
    name: z.string().min(1),
    devices: z.array(deviceSchema),
    /** Path of the claim's CDI spec; null when the claim has no device on this node. */
    specFile: z.string().min(1).nullable(),
    /** MIG GPU instances this claim's prepare created (destroyed at unprepare). */
    migCreated: z.array(migCreatedSchema),
  })
  .strict();

const checkpointSchema = z
  .object({
    version: z.literal(CHECKPOINT_VERSION),
    node: z.string().min(1),
    claims: z.record(z.string().min(1), claimSchema),
  })
  .strict();

/** A prepared claim as checkpointed. */
export type PreparedClaim = z.infer<typeof claimSchema>;
/** A device of a prepared claim. */
export type PreparedDevice = z.infer<typeof deviceSchema>;
/** A MIG instance a claim created. */
export type CreatedMigInstance = z.infer<typeof migCreatedSchema>;

/** The checkpoint could not be read: code, file and problem. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly code = 'CheckpointUnreadable';
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(
      `the checkpoint ${file} cannot be read (${problem}); it is kept as it is: move it away to start ` +
        `without the claims it lists, or restore it`,
    );
  }
}

/** The prepared claims of a node, kept in memory and on disk. */
export interface ClaimCheckpoint {
  /** Path of the file. */
  readonly file: string;
  get(uid: string): PreparedClaim | undefined;
  /** Claim UIDs checkpointed. */
  uids(): string[];
  /** Records (or replaces) a claim and writes the file; rejects with the write's error, memory unchanged. */
  put(uid: string, claim: PreparedClaim): Promise<void>;
  /** Drops a claim and writes the file (nothing written when absent). */
  remove(uid: string): Promise<void>;
}

async function save(file: string, node: string, claims: ReadonlyMap<string, PreparedClaim>): Promise<void> {
  const content = { version: CHECKPOINT_VERSION, node, claims: Object.fromEntries(claims) };
  await writeFileAtomic(file, `${JSON.stringify(content, null, 2)}\n`, { fileMode: 0o600, directoryMode: 0o700 });
}

/**
 * Reads `<stateDir>/checkpoint.json` (none yet: empty) and returns the checkpoint.
 * @throws CheckpointError when the file is not JSON, does not match the format, or names another node
 */
export async function openClaimCheckpoint(stateDir: string, node: string): Promise<ClaimCheckpoint> {
  const file = join(stateDir, CHECKPOINT_FILE);
  await removeLeftoverTemporaries(file);
  const claims = new Map<string, PreparedClaim>();
  let text: string | null = null;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CheckpointError(file, (error as Error).message);
  }
  if (text !== null) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CheckpointError(file, `not JSON: ${(error as Error).message}`);
    }
    const parsed = checkpointSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CheckpointError(file, `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    if (parsed.data.node !== node)
      throw new CheckpointError(file, `it is the checkpoint of node ${parsed.data.node}, not ${node}`);
    for (const [uid, claim] of Object.entries(parsed.data.claims)) claims.set(uid, claim);
  }
  return {
    file,
    get: (uid) => claims.get(uid),
    uids: () => [...claims.keys()],
    async put(uid, claim) {
      const next = new Map(claims).set(uid, claim);
      await save(file, node, next);
      claims.set(uid, claim);
    },
    async remove(uid) {
      if (!claims.has(uid)) return;
      const next = new Map(claims);
      next.delete(uid);
      await save(file, node, next);
      claims.delete(uid);
    },
  };
}
