import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/exit-codes.js';
import { resolveDraDriverOptions } from './dra-driver-command.js';

const FLAGS = {
  kubeletDir: '/var/lib/kubelet',
  cdiDir: '/var/run/cdi',
  stateDir: '/var/lib/gpushare/dra',
  mpsDir: '/run/gpushare/mps',
  healthIntervalSeconds: '10',
  logLevel: 'info',
};

describe('gpushare dra-driver flags', () => {
  it('takes the node name from NODE_NAME and keeps the defaults', () => {
    expect(resolveDraDriverOptions(FLAGS, { NODE_NAME: 'gpu-node-7' })).toEqual({
      nodeName: 'gpu-node-7',
      kubeletDir: '/var/lib/kubelet',
      cdiDir: '/var/run/cdi',
      stateDir: '/var/lib/gpushare/dra',
      simulateGpus: null,
      kubeconfig: null,
      mpsDir: '/run/gpushare/mps',
      healthIntervalSeconds: 10,
      logLevel: 'info',
    });
  });

  it.each([
    [{}, {}, '--node-name is required (or set NODE_NAME, e.g. from the downward API spec.nodeName)'],
    [
      { nodeName: 'n', healthIntervalSeconds: '0' },
      {},
      '--health-interval-seconds must be a number from 1 to 3600, got "0"',
    ],
    [{ nodeName: 'n', stateDir: 'state' }, {}, '--state-dir must be an absolute path, got "state"'],
    [{ nodeName: 'n', kubeletDir: '' }, {}, '--kubelet-dir must be an absolute path, got ""'],
    [{ nodeName: 'n', simulateGpus: '2xB200' }, {}, /^--simulate-gpus: unknown model "B200"/],
  ])('refuses %j naming the flag', (flags, env, message) => {
    expect(() => resolveDraDriverOptions({ ...FLAGS, ...flags }, env)).toThrow(UsageError);
    expect(() => resolveDraDriverOptions({ ...FLAGS, ...flags }, env)).toThrow(message);
  });
});
