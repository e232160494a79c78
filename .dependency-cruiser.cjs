/**
 * The dependency rules of docs/architecture.md ("Dependency direction"), checked by
 * dependency-cruiser in `npm test` (`npm run deps`); test/architecture/dependency-rules.test.ts
 * plants a violation of each rule and checks that it is reported. Tests and test helpers
 * (`*.test.ts`, `testing/` folders, `*.contract.ts`, `store-fixtures.ts`) may cross layers; the
 * rest of src/ may not.
 */
const TEST_FILES = '(\\.test\\.ts$|/testing/|\\.contract\\.ts$|store-fixtures\\.ts$)';

/** A rule that files under `from` may import nothing under `forbidden` (paths under src/). */
function layer(name, comment, from, forbidden) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^src/(${from})/`, pathNot: TEST_FILES },
    to: { path: `^src/(${forbidden.join('|')})/` },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module depends on itself through others.',
      severity: 'error',
      from: { pathNot: TEST_FILES },
      to: { circular: true },
    },
    layer('core-depends-on-core', 'src/core is the pure scheduler core: it imports nothing outside src/core.', 'core', [
      'app',
      'adapters',
      'cli',
      'config',
      'contract',
      'host',
      'lib',
      'sim',
      'main',
      'bench',
    ]),
    {
      name: 'core-no-node',
      comment: 'src/core does no I/O: no Node built-ins and no packages.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST_FILES },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'core-through-index',
      comment: 'Outside src/core, the core is imported only through src/core/index.ts (its public surface).',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/core/|${TEST_FILES}` },
      to: { path: '^src/core/', pathNot: '^src/core/index\\.ts$' },
    },
    layer('contract-depends-on-core', "src/contract (API shapes) uses only the core's names and values.", 'contract', [
      'app',
      'adapters',
      'cli',
      'config',
      'sim',
      'main',
      'bench',
    ]),
    layer(
      'app-depends-on-core-and-contract',
      'src/app (use cases) talks to the world only through its ports: it imports src/core and src/contract, never an adapter.',
      'app',
      ['adapters', 'cli', 'config', 'host', 'sim', 'main', 'bench'],
    ),
    {
      name: 'app-no-io',
      comment:
        'src/app does no I/O itself: files, processes, sockets and timers go through its ports (Clock, JobFiles, ProcessLauncher, ...).',
      severity: 'error',
      from: { path: '^src/app/', pathNot: TEST_FILES },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|child_process|net|http|https|dgram|worker_threads|timers|timers/promises|perf_hooks)$',
      },
    },
    {
      name: 'adapter-not-adapter',
      comment: 'An adapter never imports another adapter (src/main wires them together).',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/', pathNot: TEST_FILES },
      to: { path: '^src/adapters/([^/]+)/', pathNot: '^src/adapters/$1/' },
    },
    layer(
      'adapters-depend-inward',
      'src/adapters implement the ports of src/app over src/core and src/contract; they import no CLI, simulator, config or composition root.',
      'adapters',
      ['cli', 'config', 'sim', 'main', 'bench'],
    ),
    layer(
      'lib-depends-on-nothing',
      'src/lib holds pure helpers without a domain (text tables, statistics) that every layer but the core may use; it imports nothing of gpushare.',
      'lib',
      ['core', 'app', 'adapters', 'cli', 'config', 'contract', 'host', 'sim', 'main', 'bench'],
    ),
    {
      name: 'lib-no-io',
      comment: 'src/lib is pure: no Node built-ins and no packages.',
      severity: 'error',
      from: { path: '^src/lib/', pathNot: TEST_FILES },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    layer(
      'host-depends-on-nothing',
      'src/host holds facts of the Linux host (/proc, PATH lookup) shared by adapters; it imports nothing of gpushare.',
      'host',
      ['core', 'app', 'adapters', 'cli', 'config', 'contract', 'sim', 'main', 'bench'],
    ),
    layer(
      'sim-depends-on-core',
      'src/sim replays traces through the core; it uses no control plane, adapter, CLI or composition root.',
      'sim',
      ['app', 'adapters', 'cli', 'config', 'contract', 'host', 'main', 'bench'],
    ),
    layer('config-depends-on-core', "src/config resolves settings; it uses only the core's names.", 'config', [
      'app',
      'adapters',
      'cli',
      'contract',
      'sim',
      'main',
      'bench',
    ]),
    layer(
      'cli-not-main-app',
      'src/cli talks to a server through the HTTP client and runs the simulator; it never imports a composition root, the control plane or another adapter.',
      'cli',
      ['main', 'app', 'bench'],
    ),
    {
      name: 'cli-only-http-client',
      comment: 'Of the adapters, src/cli uses only the HTTP client.',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: TEST_FILES },
      to: { path: '^src/adapters/', pathNot: '^src/adapters/http-client/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
