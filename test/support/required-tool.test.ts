import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { requireTool } from './required-tool.js';

describe('requireTool', () => {
  it('returns true for an executable that exists', () => {
    expect(requireTool('/bin/sh', 'apt-get install dash', {})).toBe(true);
  });

  it('returns false and says how to install a missing tool when tools are not required', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(requireTool('/nonexistent/promtool', 'apt-get install prometheus', {})).toBe(false);
      expect(write).toHaveBeenCalledWith(
        'skipped: /nonexistent/promtool not found; install it with: apt-get install prometheus\n',
      );
    } finally {
      write.mockRestore();
    }
  });

  it('throws for a missing tool when GPUSHARE_REQUIRE_TOOLS=1', () => {
    expect(() =>
      requireTool('/nonexistent/chromium', 'apt-get install chromium', { GPUSHARE_REQUIRE_TOOLS: '1' }),
    ).toThrow(
      '/nonexistent/chromium not found; install it with: apt-get install chromium (required because ' +
        'GPUSHARE_REQUIRE_TOOLS=1)',
    );
  });

  it('treats a file that is not executable as missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpushare-required-tool-'));
    const file = join(dir, 'promtool');
    writeFileSync(file, 'not a program', { mode: 0o644 });
    try {
      expect(() => requireTool(file, 'apt-get install prometheus', { GPUSHARE_REQUIRE_TOOLS: '1' })).toThrow(
        `${file} not found`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
