import { CommanderError, InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from './exit-codes.js';
import { createSimulateCommand } from './simulate-command.js';
import { parseGpuModel, parseSharingList } from './simulate-hybrid.js';

/** Parses `simulate` with `args`; returns what it threw (nothing is run: every case fails a flag check). */
async function failure(...args: string[]): Promise<unknown> {
  const command = createSimulateCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  try {
    await command.parseAsync(args, { from: 'user' });
  } catch (err) {
    return err;
  }
  throw new Error('expected the flags to be refused');
}

describe('--sharing', () => {
  it('takes a comma list or all', () => {
    expect(parseSharingList('auto')).toEqual(['auto']);
    expect(parseSharingList('mig, mps')).toEqual(['mig', 'mps']);
    expect(parseSharingList('all')).toEqual(['auto', 'mig', 'mps', 'timeslice']);
  });

  it('refuses unknown, empty or repeated settings, naming the allowed values', () => {
    expect(() => parseSharingList('exclusive')).toThrow(
      new InvalidArgumentError(
        "unknown sharing setting 'exclusive'; allowed: auto, mig, mps, timeslice (a comma list), or all",
      ),
    );
    expect(() => parseSharingList('auto,')).toThrow(InvalidArgumentError);
    expect(() => parseSharingList('mps,mps')).toThrow(/listed twice/);
    expect(() => parseSharingList('all,mig')).toThrow(/unknown sharing setting 'all'/);
  });
});

describe('--gpu-model', () => {
  it('takes catalog models with known memory, by name or alias', () => {
    expect(parseGpuModel('A100-80GB')).toBe('A100-80GB');
    expect(parseGpuModel('H100')).toBe('H100-80GB');
    expect(parseGpuModel('T4')).toBe('T4');
  });

  it('refuses unknown models and the trace codes without memory, listing the allowed ones', () => {
    expect(() => parseGpuModel('B200')).toThrow(
      /^expected a GPU model of the catalog with known memory; allowed: P100, T4, .*A100-80GB, H100-80GB, H200-141GB$/,
    );
    expect(() => parseGpuModel('G2')).toThrow(InvalidArgumentError);
  });

  it('is a usage error (commander, exit 2) on the command line', async () => {
    const err = await failure('--sharing', 'auto', '--gpu-model', 'G2');
    expect(err).toBeInstanceOf(CommanderError);
    expect((err as CommanderError).message).toMatch(/option '--gpu-model <model>' argument 'G2' is invalid/);
  });
});

describe('flag combinations', () => {
  it.each([
    [['--sharing', 'auto'], /^--sharing needs --gpu-model MODEL .*allowed: P100/],
    [['--gpu-model', 'A100-80GB'], /^--gpu-model applies to --sharing only/],
    [
      ['--sharing', 'auto', '--gpu-model', 'A100-80GB', '--replay', 'timeline'],
      /^--sharing applies to --replay packing only/,
    ],
    [
      ['--sharing', 'auto', '--gpu-model', 'A100-80GB', '--policy', 'fgd'],
      /^--sharing chooses nodes with the default policy; --policy fgd is not allowed/,
    ],
    [['--sharing', 'auto', '--gpu-model', 'A100-80GB', '--workload', 'online'], /--workload online is not allowed/],
    [
      ['--sharing', 'mps,mig', '--gpu-model', 'T4'],
      new RegExp(
        /^--sharing mig needs a MIG-capable --gpu-model; T4 has no MIG; /.source +
          /allowed: A30-24GB, A100-40GB, A100-80GB, H100-80GB, H200-141GB$/.source,
      ),
    ],
    [
      ['--sharing', 'auto', '--gpu-model', 'A100-80GB', '--arrival-speedup', '2'],
      /^--arrival-speedup applies to --replay timeline only/,
    ],
  ])('%j is refused', async (args, message) => {
    const err = await failure(...args);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });
});
