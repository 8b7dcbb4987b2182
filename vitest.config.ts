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
          exclude: ['**/node_modules/**', '**/.output/**', '**/*.x11.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          // Tests against a real X server: each file starts its own Xvfb + openbox
          // (tests/support/x-server.ts), so they need xvfb, openbox, xdotool, wmctrl, xclip.
          name: 'desktop',
          include: ['native-host/src/**/*.x11.test.ts', 'tests/desktop/**/*.test.ts'],
          exclude: ['**/node_modules/**'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
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
