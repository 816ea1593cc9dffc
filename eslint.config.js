// typescript-eslint over the whole project; generated code is left out.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import architecture from './scripts/eslint/module-boundaries.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'src/generated/**', 'rest-shim/generated/**', 'client/generated/**', 'data/**', 'coverage/**', 'dist/**', 'dist-test-*/**', 'dist.*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly', AbortController: 'readonly', Headers: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Module boundaries (docs/architecture.md "Layers"): modules meet through index.ts; rest-shim only at the root.
    files: ['src/**/*.ts'],
    plugins: { architecture },
    rules: { 'architecture/module-boundaries': 'error' },
  },
  {
    files: ['src/main.ts', 'src/cli/**', 'scripts/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
);
