import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'shared/src/**/*.test.ts',
            'native-host/src/**/*.test.ts',
            'extension/**/*.test.ts',
            'tests/unit/**/*.test.ts',
          ],
          exclude: ['**/node_modules/**', '**/.output/**'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each file starts real daemons and hosts; run files one after another so timing-
          // sensitive process tests do not compete for the two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
