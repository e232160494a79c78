/**
 * The dependency rules of docs/architecture.md (.dependency-cruiser.cjs) work: a tree with one
 * planted violation of each rule gets exactly those violations reported, by rule, and the
 * allowed arrows (and tests, which may cross layers) get none. `npm run deps` checks src/ itself.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as IConfiguration;

/** File → the files it imports (paths under the fixture's root; `node:*` for built-ins). */
const TREE: Record<string, string[]> = {
  // allowed arrows
  'src/core/model/request.ts': [],
  'src/core/schedule.ts': ['src/core/model/request.ts'],
  'src/core/index.ts': ['src/core/schedule.ts', 'src/core/model/request.ts'],
  'src/contract/api.ts': ['src/core/index.ts'],
  'src/app/ports/clock.ts': [],
  'src/app/service.ts': [
    'src/core/index.ts',
    'src/contract/api.ts',
    'src/app/ports/clock.ts',
    'src/lib/table.ts',
    'node:crypto',
  ],
  'src/host/proc.ts': ['node:fs'],
  'src/lib/table.ts': [],
  'src/adapters/store/store.ts': ['src/app/ports/clock.ts', 'src/core/index.ts', 'src/host/proc.ts', 'node:fs'],
  'src/adapters/http-client/client.ts': ['src/contract/api.ts'],
  'src/cli/submit.ts': [
    'src/adapters/http-client/client.ts',
    'src/contract/api.ts',
    'src/config/settings.ts',
    'src/sim/replay.ts',
  ],
  'src/config/settings.ts': ['src/core/index.ts'],
  'src/sim/replay.ts': ['src/core/index.ts', 'src/lib/table.ts', 'node:fs'],
  'src/main/serve.ts': ['src/adapters/store/store.ts', 'src/app/service.ts', 'src/cli/submit.ts'],
  'src/app/service.test.ts': ['src/adapters/store/store.ts', 'src/main/serve.ts'],
  'src/core/testing/builders.ts': ['src/app/service.ts'],
  // one violation of each rule
  'src/app/cycle-a.ts': ['src/app/cycle-b.ts'],
  'src/app/cycle-b.ts': ['src/app/cycle-a.ts'],
  'src/core/impure.ts': ['src/app/service.ts'],
  'src/core/io.ts': ['node:fs'],
  'src/contract/leak.ts': ['src/app/service.ts'],
  'src/app/uses-adapter.ts': ['src/adapters/store/store.ts'],
  'src/app/reads-files.ts': ['node:fs'],
  'src/adapters/http/server.ts': ['src/adapters/store/store.ts'],
  'src/adapters/store/outward.ts': ['src/main/serve.ts'],
  'src/host/inward.ts': ['src/core/index.ts'],
  'src/lib/inward.ts': ['src/core/index.ts'],
  'src/sim/internals.ts': ['src/core/schedule.ts'],
  'src/lib/io.ts': ['node:fs'],
  'src/core/uses-lib.ts': ['src/lib/table.ts'],
  'src/sim/uses-app.ts': ['src/app/service.ts'],
  'src/config/uses-app.ts': ['src/app/service.ts'],
  'src/cli/uses-main.ts': ['src/main/serve.ts'],
  'src/cli/uses-store.ts': ['src/adapters/store/store.ts'],
};

let root = '';
let cwd = '';
let violations: [string, string][] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gpushare-deps-'));
  for (const [file, imports] of Object.entries(TREE)) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    const lines = imports.map((target, i) => {
      if (target.startsWith('node:')) return `import * as m${i} from '${target}';`;
      const specifier = relative(dirname(file), target).replace(/\.ts$/, '.js');
      return `import * as m${i} from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`;
    });
    writeFileSync(
      join(root, file),
      `${lines.join('\n')}\nexport const x = ${imports.map((_, i) => `m${i}`).join(', ') || '0'};\n`,
    );
  }
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      include: ['src/**/*.ts'],
    }),
  );
  cwd = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(['src'], {
      validate: true,
      ruleSet: { forbidden: config.forbidden },
      ...config.options,
      tsConfig: { fileName: 'tsconfig.json' },
    });
    const output = result.output as {
      modules: unknown[];
      summary: { violations: { rule: { name: string }; from: string }[] };
    };
    if (output.modules.length < Object.keys(TREE).length)
      throw new Error(`cruised only ${output.modules.length} modules`);
    violations = output.summary.violations.map((v) => [v.rule.name, v.from] as [string, string]).sort();
  } finally {
    process.chdir(cwd);
  }
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('dependency rules', () => {
  it('report each planted violation under its rule, and nothing else', () => {
    expect(violations).toEqual([
      ['adapter-not-adapter', 'src/adapters/http/server.ts'],
      ['adapters-depend-inward', 'src/adapters/store/outward.ts'],
      ['app-depends-on-core-and-contract', 'src/app/uses-adapter.ts'],
      ['app-no-io', 'src/app/reads-files.ts'],
      ['cli-not-main-app', 'src/cli/uses-main.ts'],
      ['cli-only-http-client', 'src/cli/uses-store.ts'],
      ['config-depends-on-core', 'src/config/uses-app.ts'],
      ['contract-depends-on-core', 'src/contract/leak.ts'],
      ['core-depends-on-core', 'src/core/impure.ts'],
      ['core-depends-on-core', 'src/core/uses-lib.ts'],
      ['core-no-node', 'src/core/io.ts'],
      ['core-through-index', 'src/sim/internals.ts'],
      ['host-depends-on-nothing', 'src/host/inward.ts'],
      ['lib-depends-on-nothing', 'src/lib/inward.ts'],
      ['lib-no-io', 'src/lib/io.ts'],
      ['no-circular', 'src/app/cycle-a.ts'],
      ['sim-depends-on-core', 'src/sim/uses-app.ts'],
    ]);
  });

  it('cover every rule of the configuration', () => {
    expect(new Set(violations.map(([rule]) => rule))).toEqual(new Set(config.forbidden!.map((r) => r.name)));
  });
});
