import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'crypto',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'https',
  'module',
  'net',
  'os',
  'path',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '.output/**', '.wxt/**', '**/dist/**', 'test-results/**', 'playwright-report/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Only platform/current.ts may look at the OS; everything else asks it.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'platform', message: 'Use currentPlatform() from platform/current.ts.' },
      ],
    },
  },
  {
    files: ['native-host/src/platform/current.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  // Layering: shared/ is runtime-neutral — no Node modules, no browser or Node globals.
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'shared/ must not use Node APIs.' },
            { group: ['wxt', 'wxt/*', 'webextension-polyfill'], message: 'shared/ must not use browser APIs.' },
            {
              group: ['**/native-host/**', '**/extension/**', '@nextai/native-host'],
              message: 'shared/ imports neither side.',
            },
          ],
          paths: nodeBuiltins.map((name) => ({ name, message: 'shared/ must not use Node APIs.' })),
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', '__dirname', 'chrome', 'browser', 'window', 'document', 'navigator'].map(
          (name) => ({ name, message: 'shared/ is runtime-neutral.' }),
        ),
      ],
    },
  },
  // Layering: the extension never imports the native host, and the host never imports the extension.
  {
    files: ['extension/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/native-host/**', '@nextai/native-host'],
              message: 'The extension never imports the native host.',
            },
            { group: ['node:*'], message: 'The extension runs in the browser.' },
          ],
        },
      ],
    },
  },
  {
    files: ['native-host/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/extension/**', 'wxt', 'wxt/*'], message: 'The native host never imports the extension.' },
          ],
        },
      ],
    },
  },
  // The page agent runs inside web pages, injected by the extension and by the daemon's headless
  // browser alike: DOM only — no extension APIs, no Node, no other side of the repository.
  {
    files: ['page/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'The page agent runs in web pages.' },
            { group: ['wxt', 'wxt/*', 'webextension-polyfill'], message: 'The page agent uses only the DOM.' },
            {
              group: ['**/native-host/**', '**/extension/**', '@nextai/native-host'],
              message: 'The page agent imports only shared/ types.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['chrome', 'browser', 'process', 'Buffer', 'require'].map((name) => ({
          name,
          message: 'The page agent uses only the DOM.',
        })),
      ],
    },
  },
  {
    files: ['page/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['extension/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['native-host/**/*.{ts,js,mjs}', 'tests/**/*.ts', 'scripts/**/*.{js,mjs}', '*.{js,ts,mjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
);
