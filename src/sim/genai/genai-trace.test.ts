import { describe, expect, it } from 'vitest';
import { parseGenaiTrace } from './genai-trace.js';

const MIB = 1024 * 1024;

describe('parseGenaiTrace', () => {
  it('aligns both files on one grid, MiB from bytes, NaN where a pod has no sample', () => {
    const duty = ['value,timestamp_anon,container_ip', '10.0,100.0,a', '20.5,157.0,a', '0.0,100.0,b', '7,214.0,c'];
    const memory = [
      'timestamp_anon,value,container_ip',
      `100.0,${2 * MIB}.0,a`,
      `214.0,${3 * MIB},a`,
      `157.0,${MIB / 2},b`,
      `100,${MIB},d`,
    ];
    const trace = parseGenaiTrace(duty.join('\n'), `${memory.join('\r\n')}\n`);
    expect(trace.instantsSeconds).toEqual([100, 157, 214]);
    expect(trace.pods.map((p) => p.pod)).toEqual(['a', 'b']);
    expect([...trace.pods[0]!.dutyPct]).toEqual([10, 20.5, Number.NaN]);
    expect([...trace.pods[0]!.memoryMiB]).toEqual([2, Number.NaN, 3]);
    expect([...trace.pods[1]!.dutyPct]).toEqual([0, Number.NaN, Number.NaN]);
    expect([...trace.pods[1]!.memoryMiB]).toEqual([Number.NaN, 0.5, Number.NaN]);
    expect(trace.dutyOnlyPods).toEqual(['c']);
    expect(trace.memoryOnlyPods).toEqual(['d']);
  });

  it('names the file, line and column of a bad value, a duty cycle over 100 or a second sample', () => {
    const memory = 'timestamp_anon,value,container_ip\n1,5,a';
    expect(() => parseGenaiTrace('value,timestamp_anon,container_ip\n100.5,1,a', memory)).toThrow(
      "pod_gpu_duty_cycle_anon.csv.gz:2 field 'value': expected a decimal number ≥ 0 and ≤ 100, found '100.5'",
    );
    expect(() => parseGenaiTrace('value,timestamp_anon,container_ip\n1,-3,a', memory)).toThrow(
      "pod_gpu_duty_cycle_anon.csv.gz:2 field 'timestamp_anon': expected a decimal number ≥ 0, found '-3'",
    );
    expect(() =>
      parseGenaiTrace('value,timestamp_anon,container_ip\n1,1,a', `${memory}\n1.0,6,a`, { duty: 'd', memory: 'm' }),
    ).toThrow("m:3 field 'timestamp_anon': a second sample of pod a at 1");
    expect(() => parseGenaiTrace('value,timestamp_anon\n1,1', memory)).toThrow(
      'missing required column(s) container_ip',
    );
  });
});
