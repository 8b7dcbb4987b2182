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

/**
 * The folders of native-host/src from the bottom up: each may import only the folders before it
 * (and shared/), so there is no cycle between folders. Base code first (`core/`: logger, paths,
 * subprocesses, which OS this is; `storage/`: the database, its migrations, the event log), then
 * the features, then `gateway/` (the one chokepoint every tool call goes through: validate →
 * decide → ask → execute → audit), the agent and the scheduler that call through it, and at the
 * top `daemon/` (wiring only) and `cli/`. docs/ARCHITECTURE.md draws it.
 */
export const HOST_LAYERS = [
  'core',
  'transport',
  'sandbox',
  'storage',
  'install',
  'platform',
  'client',
  'policy',
  'tools',
  'browser',
  'gateway',
  'agent',
  'scheduler',
  'host',
  'daemon',
  'cli',
];

const NO_EXTENSION = {
  group: ['**/extension/**', 'wxt', 'wxt/*'],
  message: 'The native host never imports the extension.',
};

/** One config per folder: the extension and every folder above it are out of reach. */
const hostLayerConfigs = HOST_LAYERS.map((folder, index) => {
  const above = HOST_LAYERS.slice(index + 1);
  return {
    files: [`native-host/src/${folder}/**/*.ts`],
    ignores: ['native-host/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_EXTENSION,
            ...(above.length === 0
              ? []
              : [
                  {
                    group: above.map((name) => `**/${name}/**`),
                    message: `native-host/src/${folder}/ sits below ${above.join(', ')} (HOST_LAYERS in eslint.config.js): it may not import them. Move the shared part down, or pass it in.`,
                  },
                ]),
          ],
        },
      ],
    },
  };
});

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
      // Only core/current-platform.ts may look at the OS; everything else asks it.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'platform', message: 'Use currentPlatform() from core/current-platform.ts.' },
      ],
    },
  },
  {
    files: ['native-host/src/core/current-platform.ts'],
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
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_EXTENSION] }] },
  },
  // Layering inside native-host/src: no folder imports one above it.
  ...hostLayerConfigs,
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
