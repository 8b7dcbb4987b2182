import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'tests/e2e',
  // Each test launches its own browser and daemon; two at a time suits a 2-core machine.
  workers: 2,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
});
