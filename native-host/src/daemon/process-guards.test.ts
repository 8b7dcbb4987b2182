import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs a script in a Node process of its own (an unhandled rejection concerns the whole process). */
function runNode(script: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: here,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('logUnhandledRejections', () => {
  it('logs an unhandled rejection with its stack, and the process keeps running', () => {
    const result = runNode(`
      const { logUnhandledRejections } = await import('./process-guards.ts');
      const { createLogger } = await import('../core/logger.ts');
      logUnhandledRejections(createLogger({ component: 'daemon', stderr: true }));
      void Promise.reject(new Error('a forgotten catch'));
      // Without the handler, Node ends the process before this (exit code 1, nothing written).
      setTimeout(() => process.stdout.write('still running'), 50);
    `);
    expect(result.stderr).toContain('a promise was rejected and nothing handled it (a bug)');
    expect(result.stderr).toContain('error="a forgotten catch"');
    expect(result.stderr).toMatch(/stack="Error: a forgotten catch\\n\s+at /);
    expect(result.stdout).toBe('still running');
    expect(result.status).toBe(0);
  });
});

describe('logUncaughtExceptions', () => {
  it('logs the exception that ends the process, with its stack, and the process still ends', () => {
    const result = runNode(`
      const { logUncaughtExceptions } = await import('./process-guards.ts');
      const { createLogger } = await import('../core/logger.ts');
      logUncaughtExceptions(createLogger({ component: 'daemon', stderr: true }));
      setTimeout(() => {
        throw new Error('a thrown bug');
      });
      setTimeout(() => process.stdout.write('still running'), 200);
    `);
    expect(result.stderr).toContain('an exception nothing caught ends the daemon (a bug)');
    expect(result.stderr).toContain('error="a thrown bug" origin="uncaughtException"');
    expect(result.stderr).toMatch(/stack="Error: a thrown bug\\n\s+at /);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });
});
