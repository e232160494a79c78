// ESLint flat config. The block for src/core keeps the scheduler core pure: no Node built-ins,
// no clock, no randomness, no process state (time and randomness are passed in as arguments).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '*.html', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The command is CommonJS (bin/package.json): Node starts it without its ES module loader.
    files: ['bin/gpushare'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      // Prettier formats to 120 columns but leaves long strings, comments and regexes as written:
      // this rule holds them to the same limit (docs/decisions/0022-one-formatter.md).
      'max-len': ['error', { code: 120, tabWidth: 2, ignoreUrls: true }],
    },
  },
  {
    // The web dashboard: plain ES modules run by the browser; uPlot is loaded as a global script.
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, uPlot: 'readonly' } },
  },
  {
    // src/app does no I/O and keeps no time itself: timers and the clock come through its Clock port.
    files: ['src/app/**/*.ts'],
    ignores: ['src/app/**/*.test.ts', 'src/app/testing/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'src/app keeps time through the Clock port (app/ports/clock.ts).' },
        { name: 'setInterval', message: 'src/app keeps time through the Clock port (app/ports/clock.ts).' },
        { name: 'setImmediate', message: 'src/app keeps time through the Clock port (app/ports/clock.ts).' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'src/app reads the time from the Clock port.' },
        { object: 'performance', property: 'now', message: 'src/app measures durations with Clock.monotonicMs.' },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'src/core is pure: no Node built-ins (I/O belongs in adapters).' },
            {
              group: ['fs', 'path', 'os', 'child_process', 'http', 'https', 'net', 'worker_threads', 'crypto'],
              message: 'src/core is pure: no I/O modules.',
            },
            {
              group: ['**/sim/**', '**/cli/**', '**/adapters/**', '**/main/**', '**/app/**'],
              message: 'src/core depends on nothing outside src/core.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'src/core is pure: pass configuration in as arguments.' },
        { name: 'require', message: 'src/core is pure.' },
        { name: 'setTimeout', message: 'src/core is pure: time is an argument.' },
        { name: 'setInterval', message: 'src/core is pure: time is an argument.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'src/core is pure: pass nowMs in.' },
        { object: 'Math', property: 'random', message: 'src/core is pure: pass a seeded rng in.' },
        { object: 'performance', property: 'now', message: 'src/core is pure: pass nowMs in.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/core is pure: pass nowMs in.',
        },
      ],
    },
  },
);
