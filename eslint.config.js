import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js', '!eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read env only in libs/config (env.ts).',
        },
      ],
    },
  },
  {
    // Nest resolves constructor params from emitted metadata: a type-only import would erase the token.
    files: ['apps/**/*.ts', 'libs/**/*.module.ts', 'libs/**/*.service.ts', 'libs/**/*.controller.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/apps/**', '#apps/*'], message: 'A lib never imports an app.' },
            { group: ['#libs/*/*'], message: 'Import another lib through its index only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/libs/**'], message: 'Import libs by alias: #libs/<name>.' },
            { group: ['#libs/*/*'], message: 'Import another lib through its index only.' },
          ],
        },
      ],
    },
  },
  {
    files: [
      'libs/config/src/env.ts',
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'scripts/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
