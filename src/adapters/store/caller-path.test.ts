import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GpushareError } from '../../app/errors.js';
import { splitCallerPath, writeCallerFile } from './caller-path.js';

const TENANT_UID = 200_000;
const asRoot = process.getuid?.() === 0;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gpushare-caller-path-'));
  chmodSync(root, 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text = 'backup bytes') =>
  writeCallerFile(path, 'path', (fd) => {
    writeSync(fd, text);
  });

/** The 422 a refused path gets: code, the field and the message. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; field: unknown; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GpushareError);
  const { code, details, message, httpStatus } = error as GpushareError;
  expect(httpStatus).toBe(422);
  return { code, field: details?.field, message };
}

describe('writeCallerFile', () => {
  it('writes a new file of mode 0600 and returns its size, leaving no temporary file', async () => {
    const target = join(root, 'out', 'backup.db');
    mkdirSync(join(root, 'out'));
    expect(await write(target, 'twelve bytes')).toBe(12);
    expect(readFileSync(target, 'utf8')).toBe('twelve bytes');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(root, 'out'))).toEqual(['backup.db']);
  });

  it('refuses a `..` component, naming path, and writes nothing', async () => {
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    const answer = await refusal(write(`${root}/a/../b/backup.db`));
    expect(answer).toEqual({
      code: 'GPUSHARE_INVALID_FIELD',
      field: 'path',
      message: `path: ${root}/a/../b/backup.db has a ".." component; give the path without it`,
    });
    expect(readdirSync(join(root, 'a'))).toEqual([]);
    expect(readdirSync(join(root, 'b'))).toEqual([]);
  });

  it('refuses an existing file and leaves it as it was', async () => {
    const target = join(root, 'backup.db');
    writeFileSync(target, 'old');
    const answer = await refusal(write(target));
    expect(answer.message).toBe(`path: ${target} exists; the server never overwrites a file (choose a new name)`);
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(root)).toEqual(['backup.db']);
  });

  it('refuses a missing folder and a file in place of a folder', async () => {
    expect((await refusal(write(join(root, 'none', 'backup.db')))).message).toBe(
      `path: ${root}/none/backup.db: folder ${root}/none does not exist on the server`,
    );
    writeFileSync(join(root, 'file'), '');
    expect((await refusal(write(join(root, 'file', 'backup.db')))).message).toBe(
      `path: ${root}/file/backup.db: ${root}/file is not a folder`,
    );
    expect(() => splitCallerPath('/tmp/', 'path')).toThrow('path: /tmp/ names a folder; give a file name in it');
  });

  it('removes its temporary file when the write fails', async () => {
    const failing = writeCallerFile(join(root, 'backup.db'), 'path', () => {
      throw new Error('no bytes today');
    });
    await expect(failing).rejects.toThrow('no bytes today');
    expect(readdirSync(root)).toEqual([]);
  });

  describe.skipIf(!asRoot)('symbolic links (as root)', () => {
    it('refuses a folder link a tenant owns, and writes neither where it points nor beside it', async () => {
      const secret = join(root, 'secret');
      mkdirSync(secret, { mode: 0o700 });
      const home = join(root, 'home');
      mkdirSync(home);
      symlinkSync(secret, join(home, 'planted'));
      lchownSync(join(home, 'planted'), TENANT_UID, TENANT_UID);
      const answer = await refusal(write(join(home, 'planted', 'backup.db')));
      expect(answer.field).toBe('path');
      expect(answer.message).toBe(
        `path: ${home}/planted/backup.db: ${home}/planted is a symbolic link that a user other than root ` +
          `could have placed (the link is uid ${TENANT_UID}'s, in a folder of uid 0 with mode 0755); give a ` +
          `path without it`,
      );
      expect(readdirSync(secret)).toEqual([]);
      expect(readdirSync(home)).toEqual(['planted']);
    });

    it('refuses a folder a tenant owns, or one others may write without the sticky bit; writes nothing', async () => {
      const theirs = join(root, 'theirs');
      mkdirSync(theirs);
      chownSync(theirs, TENANT_UID, TENANT_UID);
      const owned = await refusal(write(join(theirs, 'backup.db')));
      expect(owned.field).toBe('path');
      expect(owned.message).toBe(
        `path: ${theirs}/backup.db: folder ${theirs} is of uid ${TENANT_UID} with mode 0755: a user other than ` +
          `root could remove or replace what is written there; give a folder root owns that nobody else may ` +
          `write (or only with the sticky bit, as /tmp)`,
      );
      const open = join(root, 'open');
      mkdirSync(open);
      chmodSync(open, 0o777);
      expect((await refusal(write(join(open, 'backup.db')))).message).toContain(
        `folder ${open} is of uid 0 with mode 0777`,
      );
      expect(readdirSync(theirs)).toEqual([]);
      expect(readdirSync(open)).toEqual([]);
    });

    it("refuses root's own link in a folder a tenant may write (it could have been swapped)", async () => {
      const target = join(root, 'target');
      mkdirSync(target);
      const shared = join(root, 'shared');
      mkdirSync(shared);
      chownSync(shared, TENANT_UID, TENANT_UID);
      symlinkSync(target, join(shared, 'link'));
      const answer = await refusal(write(join(shared, 'link', 'backup.db')));
      expect(answer.message).toContain(
        `${shared}/link is a symbolic link that a user other than root could have placed`,
      );
      expect(readdirSync(target)).toEqual([]);
    });

    it('follows a link root placed in a folder only root may write, or one with the sticky bit', async () => {
      const target = join(root, 'target');
      mkdirSync(target);
      symlinkSync('target', join(root, 'relative'));
      expect(await write(join(root, 'relative', 'one.db'), 'one')).toBe(3);
      const sticky = join(root, 'sticky');
      mkdirSync(sticky);
      chmodSync(sticky, 0o1777);
      symlinkSync(`../target`, join(sticky, 'up'));
      expect(await write(join(sticky, 'up', 'two.db'), 'two')).toBe(3);
      expect(readdirSync(target).sort()).toEqual(['one.db', 'two.db']);
    });

    it('refuses a link a tenant placed inside the text of a link root placed', async () => {
      const secret = join(root, 'secret');
      mkdirSync(secret);
      const tenantHome = join(root, 'tenant');
      mkdirSync(tenantHome);
      chownSync(tenantHome, TENANT_UID, TENANT_UID);
      symlinkSync(secret, join(tenantHome, 'evil'));
      lchownSync(join(tenantHome, 'evil'), TENANT_UID, TENANT_UID);
      symlinkSync(join(tenantHome, 'evil'), join(root, 'trusted'));
      const answer = await refusal(write(join(root, 'trusted', 'backup.db')));
      expect(answer.message).toContain(`${tenantHome}/evil is a symbolic link that a user other than root`);
      expect(readdirSync(secret)).toEqual([]);
    });
  });
});
