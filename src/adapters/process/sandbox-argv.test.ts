import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { bubblewrapEnvironmentArgs, isWithin, sandboxArgv, shellEnvironmentFile } from './sandbox-argv.js';

const programs = { bwrap: '/usr/bin/bwrap', setpriv: '/usr/bin/setpriv', shell: '/bin/sh' };
const base = {
  programs,
  chain: 'setpriv' as const,
  uid: 200001,
  gid: 200001,
  argv: ['python3', 'train.py'],
  hiddenDirectories: ['/srv/gpushare', '/root', '/root/.cache'],
  writableDirectories: ['/srv/gpushare/jobs/7-ab/work', '/srv/gpushare/jobs/7-ab/checkpoint'],
  devices: [{ source: '/dev/nvidia1', target: '/dev/nvidia1' }],
  workingDirectory: '/srv/gpushare/jobs/7-ab/work',
};

/** The values following each occurrence of `flag` (as many as `arity`). */
function occurrences(argv: string[], flag: string, arity: number): string[][] {
  const out: string[][] = [];
  argv.forEach((a, i) => {
    if (a === flag) out.push(argv.slice(i + 1, i + 1 + arity));
  });
  return out;
}

describe('sandboxArgv', () => {
  it('starts bubblewrap itself, gives the command a session of its own, and switches uid last', () => {
    const argv = sandboxArgv(base);
    // Three programs before the command (bwrap, setpriv, sh): no wrapper shell, no env.
    expect(argv[0]).toBe('/usr/bin/bwrap');
    expect(argv.slice(0, argv.indexOf('--'))).toContain('--new-session');
    const afterBwrap = argv.slice(argv.indexOf('--') + 1);
    expect(afterBwrap).toEqual([
      '/usr/bin/setpriv',
      '--reuid',
      '200001',
      '--regid',
      '200001',
      '--clear-groups',
      '--no-new-privs',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
      '/bin/sh',
      '-c',
      '. "$0" && umask 077 && exec "$@"',
      '/tmp/.gpushare-environment',
      'python3',
      'train.py',
    ]);
    // The environment arrives on descriptor 3 as a read-only file in the job's own /tmp.
    expect(occurrences(argv, '--ro-bind-data', 2)).toEqual([['3', '/tmp/.gpushare-environment']]);
  });

  it('in a user namespace: bubblewrap alone, the tenant uid mapped to itself, the environment as arguments', () => {
    const argv = sandboxArgv({ ...base, chain: 'user-namespace' });
    const own = argv.slice(0, argv.indexOf('--'));
    // One program before the command: bubblewrap, already started under the tenant's uid.
    expect(argv.slice(argv.indexOf('--') + 1)).toEqual(['python3', 'train.py']);
    expect(own.slice(0, 7)).toEqual([
      '/usr/bin/bwrap',
      '--unshare-user',
      '--disable-userns',
      '--uid',
      '200001',
      '--gid',
      '200001',
    ]);
    // The environment replaces bubblewrap's own, read from descriptor 3 (never in an argv), then the working directory.
    expect(own.slice(-5)).toEqual(['--clearenv', '--args', '3', '--chdir', '/srv/gpushare/jobs/7-ab/work']);
    expect(own).not.toContain('--ro-bind-data');
    expect(own).not.toContain('/usr/bin/setpriv');
    // The same namespaces, hidden folders and binds as the setpriv chain.
    const setpriv = sandboxArgv(base);
    expect(occurrences(own, '--tmpfs', 1)).toEqual(occurrences(setpriv, '--tmpfs', 1));
    expect(occurrences(own, '--bind', 2)).toEqual(occurrences(setpriv, '--bind', 2));
    for (const flag of ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--new-session', '--die-with-parent'])
      expect(own).toContain(flag);
  });

  it('encodes the environment as NUL-ended --setenv arguments that bubblewrap reads back exactly', () => {
    const environment = { A: 'plain', B: 'it\'s $HOME `x` \\ "q"\nline2', 'not-a-name': 'x' };
    expect(bubblewrapEnvironmentArgs(environment)).toBe(`--setenv\0A\0plain\0--setenv\0B\0${environment.B}\0`);
    expect(bubblewrapEnvironmentArgs({})).toBe('');
  });

  it(
    'hides each hidden directory once (nested ones are covered), gives private /tmp, and binds the ' +
      'writable ones back',
    () => {
      const argv = sandboxArgv(base);
      expect(occurrences(argv, '--tmpfs', 1).map(([d]) => d)).toEqual([
        '/tmp',
        '/root',
        '/var/tmp',
        '/dev/shm',
        '/srv/gpushare',
      ]);
      expect(occurrences(argv, '--bind', 2)).toEqual([
        ['/srv/gpushare/jobs/7-ab/work', '/srv/gpushare/jobs/7-ab/work'],
        ['/srv/gpushare/jobs/7-ab/checkpoint', '/srv/gpushare/jobs/7-ab/checkpoint'],
      ]);
      // The folders between the hidden data directory and the binds are made traversable, once each.
      expect(occurrences(argv, '--dir', 1).map(([d]) => d)).toEqual(['/srv/gpushare/jobs', '/srv/gpushare/jobs/7-ab']);
      expect(occurrences(argv, '--dev-bind', 2)).toEqual([['/dev/nvidia1', '/dev/nvidia1']]);
      expect(occurrences(argv, '--chdir', 1)).toEqual([['/srv/gpushare/jobs/7-ab/work']]);
      expect(argv).toEqual(
        expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--ro-bind']),
      );
      // The mounts come before the command separator; the hidden tmpfs before the binds inside it.
      expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf('--bind'));
    },
  );

  it('writes the environment as a shell file that reads back every value exactly', () => {
    expect(shellEnvironmentFile({ A: 'plain', B: 'it\'s $HOME `x` \\ "q"\nline2', 'not-a-name': 'x' })).toBe(
      "export A='plain'\nexport B='it'\\''s $HOME `x` \\ \"q\"\nline2'\n",
    );
    const file = shellEnvironmentFile({ B: 'it\'s $HOME `x` \\ "q"\nline2' });
    const read = spawnSync('/bin/sh', ['-c', `${file}printf %s "$B"`], { encoding: 'utf8', env: {} });
    expect(read.stdout).toBe('it\'s $HOME `x` \\ "q"\nline2');
  });

  it('refuses root, a relative path and an empty command', () => {
    expect(() => sandboxArgv({ ...base, uid: 0 })).toThrow('uid must be an integer >= 1, got 0');
    expect(() => sandboxArgv({ ...base, workingDirectory: 'work' })).toThrow(
      'sandbox paths must be absolute, got work',
    );
    expect(() => sandboxArgv({ ...base, argv: [] })).toThrow('argv must not be empty');
  });

  it('isWithin compares whole path components', () => {
    expect(isWithin('/srv/gpushare/jobs', '/srv/gpushare')).toBe(true);
    expect(isWithin('/srv/gpushare', '/srv/gpushare')).toBe(true);
    expect(isWithin('/srv/gpushare2', '/srv/gpushare')).toBe(false);
  });
});
