// ESLint 9 flat config (issue 20 item 5): typescript-eslint `strict`, plus the type-aware
// switch-exhaustiveness-check so that a switch over a union names every member.
// `npm run lint` lints src, test, bench and scripts; `npm test` runs it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The generated client types are openapi-typescript's output, checked against the served document by test/service/client-types.test.ts.
  { ignores: ['dist/**', 'data/**', 'bench/out/**', 'node_modules/**', 'coverage/**', 'src/client/openapi-types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // 845 hits: `rows[i]!` after a length check is how noUncheckedIndexedAccess code reads an index it knows exists.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `import fs = require('node:fs')` is TypeScript's own CommonJS import (src/cli.cts must stay CommonJS).
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      // `_`-named bindings are deliberately unused: `for (const _ of text)`, omitting a member by rest destructuring.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.cts', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A switch over a union lists every member; a `default` does not stand in for a forgotten one.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    // The explorer runs in browsers (and bundles the client with it).
    files: ['src/explorer/**', 'src/client/**'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    // A CommonJS preload (bench/node-threads.cjs) has only require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**'],
    // 87 hits, all in tests: a parsed response body is `any` because its shape is what the test asserts.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
