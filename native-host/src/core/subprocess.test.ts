import { execFileSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { runCommand } from './subprocess.js';

/**
 * Pids of processes whose command line starts with `prefix` (read with pgrep, which is in procps).
 * Anchored so the `bash -c '…'` parent, whose command line also mentions it, is not counted.
 */
function pidsWith(prefix: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', `^${prefix}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    // pgrep exits 1 when nothing matches.
    return [];
  }
}

describe('runCommand', () => {
  it('returns stdout of a program that exits 0', async () => {
    await expect(runCommand('printf', ['%s', 'hello'])).resolves.toMatchObject({ stdout: 'hello', exitCode: 0 });
  });

  it('names the command, exit code and stderr when it fails', async () => {
    await expect(runCommand('sh', ['-c', 'echo oops >&2; exit 3'])).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringMatching(/`sh -c .*` exited with code 3: oops/),
    });
  });

  it('says how to install a missing program', async () => {
    await expect(
      runCommand('no-such-program-xyz', [], { installHint: 'On Debian: apt install xyz' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('On Debian: apt install xyz'),
    });
  });

  it('kills a program that runs past its time-out', async () => {
    await expect(runCommand('sleep', ['5'], { timeoutMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('on abort, kills the program and everything it started', async () => {
    const marker = `31.${process.pid}${Date.now() % 1000}`;
    const controller = new AbortController();
    // --norc: bash sources ~/.bashrc when its stdin is a socket (it assumes sshd started it), and
    // Node's stdio pipes are sockets.
    const running = runCommand('bash', ['--norc', '-c', `sleep ${marker} & sleep ${marker}; wait`], {
      signal: controller.signal,
      timeoutMs: 60_000,
    });
    // Generous: under a full parallel test run, starting bash and its children can take a while.
    await expect.poll(() => pidsWith(`sleep ${marker}`).length, { timeout: 10_000 }).toBe(2);
    // The sleeps last the whole test's time-out: ending at all means they were not waited for.
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'EMERGENCY_STOPPED' });
    await expect.poll(() => pidsWith(`sleep ${marker}`), { timeout: 5_000 }).toEqual([]);
  });
});
