import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Registry } from 'prom-client';
import { findSamples, parseMetricsText, sampleValue } from './metrics-text.js';

describe('parseMetricsText', () => {
  it('reads prom-client output: labels with escapes, histograms, +Inf', async () => {
    const registry = new Registry();
    new Gauge({ name: 'g', help: 'h', labelNames: ['a', 'b'], registers: [registry] }).set(
      { a: 'x "quoted" \\ back', b: 'line\nbreak' },
      2.5,
    );
    new Counter({ name: 'c_total', help: 'h', registers: [registry] }).inc(3);
    const samples = parseMetricsText(await registry.metrics());
    expect(samples).toEqual([
      { name: 'g', labels: { a: 'x "quoted" \\ back', b: 'line\nbreak' }, value: 2.5 },
      { name: 'c_total', labels: {}, value: 3 },
    ]);
    expect(parseMetricsText('h_bucket{le="+Inf"} 4\nh_count 4\n')).toEqual([
      { name: 'h_bucket', labels: { le: '+Inf' }, value: 4 },
      { name: 'h_count', labels: {}, value: 4 },
    ]);
  });

  it('finds samples by name and a subset of labels; sampleValue needs exactly one', () => {
    const samples = parseMetricsText('m{gpu="0",job="1"} 400\nm{gpu="0",job="2"} 400\nm{gpu="1",job="3"} 7\n');
    expect(findSamples(samples, 'm', { gpu: '0' }).map((s) => s.value)).toEqual([400, 400]);
    expect(sampleValue(samples, 'm', { job: '3' })).toBe(7);
    expect(() => sampleValue(samples, 'm', { gpu: '0' })).toThrow('expected one sample m{"gpu":"0"}, found 2');
  });

  it('names the line of a malformed sample', () => {
    expect(() => parseMetricsText('# HELP x\nok 1\nnot a sample\n')).toThrow(
      'metrics line 3: not a sample: "not a sample"',
    );
  });
});
