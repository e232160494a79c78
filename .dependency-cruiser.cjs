/**
 * The dependency rules of docs/architecture.md ("Dependency direction"), checked by
 * dependency-cruiser in `npm test` (`npm run deps`); test/architecture/dependency-rules.test.ts
 * plants a violation of each rule and checks that it is reported.
 *
 * Allow-lists: every top-level folder of src/ (LAYERS) states what its production code may import:
 * which gpushare folders, whether Node built-ins, which npm packages. A dependency that no allowed
 * rule matches is a `not-in-allowed` error, so a file in a folder without a rule may import
 * nothing (and test/architecture checks that every folder under src/ has one). The `forbidden`
 * rules refine the allow-lists (only through the core's index, no adapter from another, no I/O in
 * app, no test code in production) and forbid cycles.
 *
 * Tests and test helpers (`*.test.ts`, `testing/` folders, `*.contract.ts`, `store-fixtures.ts`)
 * may cross layers; the rest of src/ (production code) may import none of them.
 */
const TEST_FILES = '(\\.test\\.ts$|/testing/|\\.contract\\.ts$|store-fixtures\\.ts$)';

/** The Node built-ins that do I/O, which src/app may not import (app-no-io). */
const IO_BUILT_INS = [
  'fs',
  'fs/promises',
  'child_process',
  'cluster',
  'net',
  'http',
  'http2',
  'https',
  'tls',
  'dgram',
  'dns',
  'readline',
  'worker_threads',
  'timers',
  'timers/promises',
  'perf_hooks',
];

/** The dependency types of the packages of package.json's lists, for a layer that may use any of them. */
const PACKAGE_LISTS = { dependencies: ['npm'], 'dependencies and devDependencies': ['npm', 'npm-dev'] };

/**
 * What the production code of each top-level folder of src/ may import. `folders`: gpushare
 * folders (src/<folder>/); `node`: Node built-ins (app's are narrowed by app-no-io); `npm`: the names of
 * the packages it may use, or every package of package.json's `dependencies` (and `devDependencies`).
 * src/testing holds test helpers only: the TEST_FILES rule covers it.
 */
const LAYERS = {
  core: {
    comment: 'src/core is the pure scheduler core: nothing outside src/core, no Node built-ins, no packages.',
    folders: ['core'],
    node: false,
    npm: [],
  },
  lib: {
    comment: 'src/lib holds pure helpers without a domain (text tables, statistics): it imports nothing else.',
    folders: ['lib'],
    node: false,
    npm: [],
  },
  host: {
    comment: 'src/host holds facts of the Linux host (/proc, PATH lookup) shared by adapters: only Node built-ins.',
    folders: ['host'],
    node: true,
    npm: [],
  },
  contract: {
    comment: "src/contract (API shapes, zod schemas) uses only the core's names and values.",
    folders: ['contract', 'core', 'lib'],
    node: false,
    npm: ['zod'],
  },
  config: {
    comment: "src/config resolves settings (files, environment); it uses only the core's names.",
    folders: ['config', 'core', 'lib'],
    node: true,
    npm: ['yaml', 'zod'],
  },
  sim: {
    comment: 'src/sim replays traces through the core; no control plane, adapter, CLI or composition root.',
    folders: ['sim', 'core', 'lib'],
    node: true,
    npm: [],
  },
  app: {
    comment: 'src/app (use cases) talks to the world only through its ports: src/core and src/contract, no adapter.',
    folders: ['app', 'core', 'contract', 'lib'],
    node: true,
    npm: ['zod'],
  },
  adapters: {
    comment: 'src/adapters implement the ports of src/app over src/core, src/contract and src/host.',
    folders: ['adapters', 'app', 'core', 'contract', 'host', 'lib'],
    node: true,
    npm: 'dependencies',
  },
  cli: {
    comment: 'src/cli talks to a server through the HTTP client and runs the simulator; no control plane or main.',
    folders: ['cli', 'adapters', 'config', 'contract', 'core', 'lib', 'sim'],
    node: true,
    npm: ['commander'],
  },
  main: {
    comment: 'src/main is the composition root: it wires adapters, app, config and the CLI together.',
    folders: ['main', 'adapters', 'app', 'cli', 'config', 'core', 'host', 'lib'],
    node: true,
    npm: 'dependencies',
  },
  bench: {
    comment: 'src/bench measures servers, the pass and replays: everything but the CLI, config and test code.',
    folders: ['bench', 'adapters', 'app', 'contract', 'core', 'host', 'lib', 'main', 'sim'],
    node: true,
    npm: 'dependencies and devDependencies',
  },
};

/** The allowed rules of one layer: its folders, its Node built-ins, its packages. */
function allowedRules(layer, { comment, folders, node, npm }) {
  const from = { path: `^src/${layer}/`, pathNot: TEST_FILES };
  const rules = [{ comment, from, to: { path: `^src/(${folders.join('|')})/` } }];
  if (node) rules.push({ comment: `${layer}: Node built-ins`, from, to: { dependencyTypes: ['core'] } });
  if (typeof npm === 'string')
    rules.push({ comment: `${layer}: the packages of ${npm}`, from, to: { dependencyTypes: PACKAGE_LISTS[npm] } });
  else if (npm.length > 0)
    rules.push({
      comment: `${layer}: the packages ${npm.join(', ')} (of dependencies)`,
      from,
      to: { dependencyTypes: ['npm'], path: `^node_modules/(@types/)?(${npm.join('|')})/` },
    });
  return rules;
}

module.exports = {
  allowed: [
    ...Object.entries(LAYERS).flatMap(([layer, rule]) => allowedRules(layer, rule)),
    {
      comment: 'Tests and test helpers may import anything.',
      from: { path: TEST_FILES },
      to: {},
    },
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module depends on itself through others.',
      severity: 'error',
      from: { pathNot: TEST_FILES },
      to: { circular: true },
    },
    {
      name: 'production-not-test-code',
      comment: 'Production code imports no test code: no testing/ folder, test, contract test or fixture, nor test/.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_FILES },
      // src/testing/ is named apart: in `^src/.*/testing/` the slash before testing/ is not the one after src.
      to: { path: [`^src/.*${TEST_FILES}`, '^src/testing/', '^test/'] },
    },
    {
      name: 'core-through-index',
      comment: 'Outside src/core, the core is imported only through src/core/index.ts (its public surface).',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/core/|${TEST_FILES}` },
      to: { path: '^src/core/', pathNot: '^src/core/index\\.ts$' },
    },
    {
      name: 'app-no-io',
      comment:
        'src/app does no I/O itself: files, processes, sockets and timers go through its ports (Clock, JobFiles, ...).',
      severity: 'error',
      from: { path: '^src/app/', pathNot: TEST_FILES },
      to: { dependencyTypes: ['core'], path: `^(node:)?(${IO_BUILT_INS.join('|')})$` },
    },
    {
      name: 'adapter-not-adapter',
      comment: 'An adapter never imports another adapter (src/main wires them together).',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/', pathNot: TEST_FILES },
      to: { path: '^src/adapters/([^/]+)/', pathNot: '^src/adapters/$1/' },
    },
    {
      name: 'cli-only-http-client',
      comment: 'Of the adapters, src/cli uses only the HTTP client.',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: TEST_FILES },
      to: { path: '^src/adapters/', pathNot: '^src/adapters/http-client/' },
    },
  ],
  options: {
    // Packages stay in the graph (the allow-lists name them) but are not followed into.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
