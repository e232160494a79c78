/**
 * The dependency rules of docs/architecture.md (.dependency-cruiser.cjs) work: a tree with planted
 * violations (an import outside each folder's allow-list, one of each forbidden rule, a folder
 * without a rule, test code imported by production code) gets exactly those violations reported,
 * by rule, and the allowed arrows (and tests, which may cross layers) get none. Every top-level
 * folder of the real src/ has a rule. `npm run deps` checks src/ itself.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as IConfiguration;
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** The planted tree's package.json: which packages are dependencies, which dev dependencies. */
const PACKAGE = {
  name: 'planted',
  dependencies: { commander: '1', fastify: '1', yaml: '1', zod: '1' },
  devDependencies: { esbuild: '1', vitest: '1' },
};
/** Packages installed in the planted tree's node_modules; left-pad is in no list of package.json. */
const PACKAGES = [...Object.keys(PACKAGE.dependencies), ...Object.keys(PACKAGE.devDependencies), 'left-pad'];

/**
 * File → what it imports: files of the tree, `node:*` built-ins, `npm:*` packages. The tree is
 * written to a temporary folder, cruised, and removed.
 */
const TREE: Record<string, string[]> = {
  // allowed arrows
  'src/core/model/request.ts': [],
  'src/core/schedule.ts': ['src/core/model/request.ts'],
  'src/core/index.ts': ['src/core/schedule.ts', 'src/core/model/request.ts'],
  'src/contract/api.ts': ['src/core/index.ts', 'src/lib/table.ts', 'npm:zod'],
  'src/app/ports/clock.ts': [],
  'src/app/service.ts': [
    'src/core/index.ts',
    'src/contract/api.ts',
    'src/app/ports/clock.ts',
    'src/lib/table.ts',
    'node:crypto',
    'npm:zod',
  ],
  // app's sub-folders are app's own business: no rule names them
  'src/app/scheduling-loop/loop.ts': ['src/app/service.ts', 'src/app/api-services/jobs.ts', 'node:path'],
  'src/app/api-services/jobs.ts': ['src/app/ports/clock.ts', 'src/core/index.ts'],
  'src/host/proc.ts': ['node:fs'],
  'src/lib/table.ts': [],
  'src/adapters/store/store.ts': [
    'src/app/ports/clock.ts',
    'src/core/index.ts',
    'src/host/proc.ts',
    'node:fs',
    'npm:fastify',
  ],
  'src/adapters/http-client/client.ts': ['src/contract/api.ts'],
  'src/cli/submit.ts': [
    'src/adapters/http-client/client.ts',
    'src/contract/api.ts',
    'src/config/settings.ts',
    'src/sim/replay.ts',
    'node:fs',
    'npm:commander',
  ],
  'src/config/settings.ts': ['src/core/index.ts', 'node:fs', 'npm:yaml', 'npm:zod'],
  'src/sim/replay.ts': ['src/core/index.ts', 'src/lib/table.ts', 'node:fs'],
  'src/main/serve.ts': [
    'src/adapters/store/store.ts',
    'src/app/service.ts',
    'src/cli/submit.ts',
    'src/host/proc.ts',
    'node:fs',
    'npm:fastify',
  ],
  'src/bench/pass-bench.ts': ['src/main/serve.ts', 'src/sim/replay.ts', 'node:fs', 'npm:esbuild'],
  // tests and test helpers may cross layers
  'src/app/service.test.ts': ['src/adapters/store/store.ts', 'src/main/serve.ts', 'npm:vitest'],
  'src/core/testing/builders.ts': ['src/app/service.ts', 'node:fs'],
  'src/app/testing/plane-kit.ts': ['src/adapters/store/store.ts', 'src/testing/bundle.ts'],
  'src/testing/bundle.ts': ['node:fs', 'npm:esbuild', 'src/main/serve.ts'],
  'src/adapters/store/store-fixtures.ts': ['src/core/testing/builders.ts', 'npm:vitest'],
  'src/adapters/store/store.contract.ts': ['src/adapters/store/store-fixtures.ts'],
  'test/support/helper.ts': [],
  // outside each folder's allow-list: a gpushare folder, a Node built-in, a package
  'src/core/uses-lib.ts': ['src/lib/table.ts'],
  'src/core/impure.ts': ['src/app/service.ts'],
  'src/core/io.ts': ['node:fs'],
  'src/core/uses-zod.ts': ['npm:zod'],
  'src/lib/inward.ts': ['src/core/index.ts'],
  'src/lib/io.ts': ['node:fs'],
  'src/lib/uses-zod.ts': ['npm:zod'],
  'src/host/inward.ts': ['src/core/index.ts'],
  'src/host/uses-zod.ts': ['npm:zod'],
  'src/contract/leak.ts': ['src/app/service.ts'],
  'src/contract/io.ts': ['node:fs'],
  'src/contract/uses-commander.ts': ['npm:commander'],
  'src/config/uses-app.ts': ['src/app/service.ts'],
  'src/config/uses-commander.ts': ['npm:commander'],
  'src/sim/uses-app.ts': ['src/app/service.ts'],
  'src/sim/uses-zod.ts': ['npm:zod'],
  'src/app/uses-adapter.ts': ['src/adapters/store/store.ts'],
  'src/app/uses-fastify.ts': ['npm:fastify'],
  'src/adapters/store/outward.ts': ['src/main/serve.ts'],
  'src/adapters/store/uses-vitest.ts': ['npm:vitest'],
  'src/cli/uses-app.ts': ['src/app/service.ts'],
  'src/cli/uses-fastify.ts': ['npm:fastify'],
  'src/main/uses-sim.ts': ['src/sim/replay.ts'],
  'src/main/uses-vitest.ts': ['npm:vitest'],
  'src/bench/uses-cli.ts': ['src/cli/submit.ts'],
  'src/bench/uses-undeclared.ts': ['npm:left-pad'],
  // a folder without a rule, and a file beside the folders, may import nothing
  'src/zz-planted/x.ts': ['node:fs', 'src/adapters/store/store.ts', 'src/lib/table.ts'],
  'src/loose.ts': ['src/lib/table.ts'],
  // production code imports no test code
  'src/app/uses-testing.ts': ['src/testing/bundle.ts'],
  'src/core/uses-core-testing.ts': ['src/core/testing/builders.ts'],
  'src/app/uses-app-testing.ts': ['src/app/testing/plane-kit.ts'],
  'src/adapters/store/uses-fixtures.ts': ['src/adapters/store/store-fixtures.ts'],
  'src/main/uses-test-folder.ts': ['test/support/helper.ts'],
  // one violation of each forbidden rule
  'src/app/cycle-a.ts': ['src/app/cycle-b.ts'],
  'src/app/cycle-b.ts': ['src/app/cycle-a.ts'],
  'src/sim/internals.ts': ['src/core/schedule.ts'],
  'src/app/reads-files.ts': ['node:fs'],
  'src/app/api-services/timer.ts': ['node:timers/promises'],
  'src/adapters/http/server.ts': ['src/adapters/store/store.ts'],
  'src/cli/uses-store.ts': ['src/adapters/store/store.ts'],
};

/** A reported violation: rule, from, to (a path under the tree, a built-in's name, node_modules/<package>/). */
type Violation = [string, string, string];
let violations: Violation[] = [];

/** The import statement of `target` in `file`. */
function importOf(file: string, target: string, i: number): string {
  if (target.startsWith('node:')) return `import * as m${i} from '${target}';`;
  if (target.startsWith('npm:')) return `import * as m${i} from '${target.slice('npm:'.length)}';`;
  const specifier = relative(dirname(file), target).replace(/\.ts$/, '.js');
  return `import * as m${i} from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`;
}

/** Writes `text` to `file` under `root`, making its folder. */
function write(root: string, file: string, text: string): void {
  mkdirSync(join(root, dirname(file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'gpushare-deps-'));
  const cwd = process.cwd();
  try {
    for (const [file, imports] of Object.entries(TREE)) {
      const lines = imports.map((target, i) => importOf(file, target, i));
      write(root, file, `${lines.join('\n')}\nexport const x = ${imports.map((_, i) => `m${i}`).join(', ') || '0'};\n`);
    }
    for (const name of PACKAGES) {
      write(root, `node_modules/${name}/package.json`, JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
      write(root, `node_modules/${name}/index.js`, 'module.exports = {};\n');
    }
    write(root, 'package.json', JSON.stringify(PACKAGE));
    write(
      root,
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src/**/*.ts', 'test/**/*.ts'],
      }),
    );
    process.chdir(root);
    const result = await cruise(['src'], {
      validate: true,
      ruleSet: { forbidden: config.forbidden, allowed: config.allowed, allowedSeverity: config.allowedSeverity },
      ...config.options,
      tsConfig: { fileName: 'tsconfig.json' },
    });
    const output = result.output as {
      modules: { source: string }[];
      summary: { violations: { rule: { name: string }; from: string; to: string }[] };
    };
    const cruised = new Set(output.modules.map((m) => m.source));
    const missing = Object.keys(TREE).filter((file) => !cruised.has(file));
    if (missing.length > 0) throw new Error(`not cruised: ${missing.join(', ')}`);
    violations = output.summary.violations
      .map((v): Violation => [v.rule.name, v.from, v.to.replace(/^(node_modules\/[^/]+\/).*$/, '$1')])
      .sort();
  } finally {
    process.chdir(cwd);
    rmSync(root, { recursive: true, force: true });
  }
});

/** The allowed rules' `from` patterns: a production file of a folder with a rule matches one. */
function allowedFrom(): { path: RegExp; pathNot: RegExp | null }[] {
  return (config.allowed ?? []).map((rule) => {
    const from = rule.from as { path?: string; pathNot?: string };
    return { path: new RegExp(from.path ?? ''), pathNot: from.pathNot ? new RegExp(from.pathNot) : null };
  });
}

/** The entries of src/ (by name) that are not a folder whose production files an allowed rule covers. */
function withoutRule(entries: { name: string; folder: boolean }[]): string[] {
  const rules = allowedFrom();
  return entries
    .filter(({ name, folder }) => {
      const file = `src/${name}/module.ts`;
      return !folder || !rules.some((r) => r.path.test(file) && !r.pathNot?.test(file));
    })
    .map(({ name }) => name);
}

/** The top-level folders with an allow-list of their own (the `^src/<folder>/` of an allowed rule). */
function layers(): string[] {
  const names = (config.allowed ?? []).map((rule) => /^\^src\/([\w-]+)\/$/.exec(String(rule.from.path))?.[1]);
  return [...new Set(names.filter((name): name is string => name !== undefined))].sort();
}

describe('dependency rules', () => {
  it('report each planted violation under its rule, and nothing else', () => {
    expect(violations).toEqual([
      ['adapter-not-adapter', 'src/adapters/http/server.ts', 'src/adapters/store/store.ts'],
      ['app-no-io', 'src/app/api-services/timer.ts', 'timers/promises'],
      ['app-no-io', 'src/app/reads-files.ts', 'fs'],
      ['cli-only-http-client', 'src/cli/uses-store.ts', 'src/adapters/store/store.ts'],
      ['core-through-index', 'src/sim/internals.ts', 'src/core/schedule.ts'],
      ['no-circular', 'src/app/cycle-a.ts', 'src/app/cycle-b.ts'],
      ['not-in-allowed', 'src/adapters/store/outward.ts', 'src/main/serve.ts'],
      ['not-in-allowed', 'src/adapters/store/uses-vitest.ts', 'node_modules/vitest/'],
      ['not-in-allowed', 'src/app/uses-adapter.ts', 'src/adapters/store/store.ts'],
      ['not-in-allowed', 'src/app/uses-fastify.ts', 'node_modules/fastify/'],
      ['not-in-allowed', 'src/app/uses-testing.ts', 'src/testing/bundle.ts'],
      ['not-in-allowed', 'src/bench/uses-cli.ts', 'src/cli/submit.ts'],
      ['not-in-allowed', 'src/bench/uses-undeclared.ts', 'node_modules/left-pad/'],
      ['not-in-allowed', 'src/cli/uses-app.ts', 'src/app/service.ts'],
      ['not-in-allowed', 'src/cli/uses-fastify.ts', 'node_modules/fastify/'],
      ['not-in-allowed', 'src/config/uses-app.ts', 'src/app/service.ts'],
      ['not-in-allowed', 'src/config/uses-commander.ts', 'node_modules/commander/'],
      ['not-in-allowed', 'src/contract/io.ts', 'fs'],
      ['not-in-allowed', 'src/contract/leak.ts', 'src/app/service.ts'],
      ['not-in-allowed', 'src/contract/uses-commander.ts', 'node_modules/commander/'],
      ['not-in-allowed', 'src/core/impure.ts', 'src/app/service.ts'],
      ['not-in-allowed', 'src/core/io.ts', 'fs'],
      ['not-in-allowed', 'src/core/uses-lib.ts', 'src/lib/table.ts'],
      ['not-in-allowed', 'src/core/uses-zod.ts', 'node_modules/zod/'],
      ['not-in-allowed', 'src/host/inward.ts', 'src/core/index.ts'],
      ['not-in-allowed', 'src/host/uses-zod.ts', 'node_modules/zod/'],
      ['not-in-allowed', 'src/lib/inward.ts', 'src/core/index.ts'],
      ['not-in-allowed', 'src/lib/io.ts', 'fs'],
      ['not-in-allowed', 'src/lib/uses-zod.ts', 'node_modules/zod/'],
      ['not-in-allowed', 'src/loose.ts', 'src/lib/table.ts'],
      ['not-in-allowed', 'src/main/uses-sim.ts', 'src/sim/replay.ts'],
      ['not-in-allowed', 'src/main/uses-test-folder.ts', 'test/support/helper.ts'],
      ['not-in-allowed', 'src/main/uses-vitest.ts', 'node_modules/vitest/'],
      ['not-in-allowed', 'src/sim/uses-app.ts', 'src/app/service.ts'],
      ['not-in-allowed', 'src/sim/uses-zod.ts', 'node_modules/zod/'],
      ['not-in-allowed', 'src/zz-planted/x.ts', 'fs'],
      ['not-in-allowed', 'src/zz-planted/x.ts', 'src/adapters/store/store.ts'],
      ['not-in-allowed', 'src/zz-planted/x.ts', 'src/lib/table.ts'],
      ['production-not-test-code', 'src/adapters/store/uses-fixtures.ts', 'src/adapters/store/store-fixtures.ts'],
      ['production-not-test-code', 'src/app/uses-app-testing.ts', 'src/app/testing/plane-kit.ts'],
      ['production-not-test-code', 'src/app/uses-testing.ts', 'src/testing/bundle.ts'],
      ['production-not-test-code', 'src/core/uses-core-testing.ts', 'src/core/testing/builders.ts'],
      ['production-not-test-code', 'src/main/uses-test-folder.ts', 'test/support/helper.ts'],
    ]);
  });

  it('cover every forbidden rule and the allow-lists', () => {
    expect(new Set(violations.map(([rule]) => rule))).toEqual(
      new Set([...config.forbidden!.map((r) => r.name), 'not-in-allowed']),
    );
  });

  it("plant, for every folder's allow-list, a gpushare folder, a package and (where not allowed) a built-in", () => {
    const refused = (layer: string, to: (target: string) => boolean): boolean =>
      violations.some(
        ([rule, from, target]) => rule === 'not-in-allowed' && from.startsWith(`src/${layer}/`) && to(target),
      );
    const nodeRules = new Set(
      (config.allowed ?? [])
        .filter((rule) => (rule.to as { dependencyTypes?: string[] }).dependencyTypes?.includes('core'))
        .map((rule) => String(rule.from.path)),
    );
    for (const layer of layers()) {
      expect(
        refused(layer, (to) => to.startsWith('src/')),
        `${layer}: a gpushare folder`,
      ).toBe(true);
      expect(
        refused(layer, (to) => to.startsWith('node_modules/')),
        `${layer}: a package`,
      ).toBe(true);
      if (!nodeRules.has(`^src/${layer}/`))
        expect(refused(layer, (to) => !/^(src|test|node_modules)\//.test(to))).toBe(true);
    }
  });

  it('have a rule for every top-level folder of src/, and for nothing else', () => {
    const entries = readdirSync(SRC, { withFileTypes: true }).map((e) => ({ name: e.name, folder: e.isDirectory() }));
    expect(withoutRule(entries)).toEqual([]);
    expect(
      withoutRule([...entries, { name: 'zz-planted', folder: true }, { name: 'loose.ts', folder: false }]),
    ).toEqual(['zz-planted', 'loose.ts']);
    expect(layers()).toEqual(
      entries
        .filter((e) => e.name !== 'testing')
        .map((e) => e.name)
        .sort(),
    );
  });
});
