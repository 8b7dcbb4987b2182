import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { dataPaths } from '../core/paths.js';
import { InstanceLock } from '../daemon/instance-lock.js';
import { ensureDaemon, unavailableReason, unreachablePid } from './daemon-launcher.js';
import { lockHolder } from './daemon-lock.js';

let dir: string;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

function freshPaths() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-lock-'));
  return dataPaths(dir, 'linux');
}

function holdLock(paths: ReturnType<typeof freshPaths>): void {
  const lock = InstanceLock.acquire(paths);
  cleanups.push(() => lock.release());
}

describe('lockHolder', () => {
  it('finds no daemon where there is no lock file, or nobody holds it', () => {
    const paths = freshPaths();
    expect(lockHolder(paths)).toEqual({ held: false });
    InstanceLock.acquire(paths).release();
    expect(lockHolder(paths)).toEqual({ held: false });
  });

  it('finds the daemon that holds the lock, and its pid', () => {
    const paths = freshPaths();
    holdLock(paths);
    expect(lockHolder(paths)).toEqual({ held: true, pid: process.pid });
    // Looking does not take the lock from its holder, nor keep the next look from seeing it.
    expect(lockHolder(paths)).toEqual({ held: true, pid: process.pid });
  });

  // Which process has the lock open is known from /proc (Linux).
  it.runIf(fs.existsSync('/proc/self/fd'))('does not name a process from a pid file that is not the holder', () => {
    const paths = freshPaths();
    holdLock(paths);
    // Some live process that has not opened the lock (this test's parent).
    fs.writeFileSync(paths.pidFile, `${process.ppid}\n`);
    expect(lockHolder(paths)).toEqual({ held: true, pid: undefined });
    fs.rmSync(paths.pidFile);
    expect(lockHolder(paths)).toEqual({ held: true, pid: undefined });
  });
});

describe('ensureDaemon, while a daemon holds the lock but has no socket', () => {
  it('says so, with its pid, to a caller that would not start one', async () => {
    const paths = freshPaths();
    holdLock(paths);
    const error = await ensureDaemon(paths, { start: false }).catch((caught: unknown) => caught);
    expect(unavailableReason(error)).toBe('unreachable');
    expect(unreachablePid(error)).toBe(process.pid);
    expect((error as Error).message).toContain(
      `A daemon (pid ${process.pid}) holds the lock for ${dir} but its socket`,
    );
  });

  it('waits for its socket rather than starting a second daemon', async () => {
    const paths = freshPaths();
    holdLock(paths);
    const server = net.createServer((socket) => socket.end());
    cleanups.push(() => server.close());
    setTimeout(() => server.listen(paths.socket), 300);
    const { socket, started } = await ensureDaemon(paths, { start: true, timeoutMs: 5000 });
    socket.destroy();
    expect(started).toBe(false);
  });

  it('gives up, saying the daemon may be stuck, when its socket does not come back', async () => {
    const paths = freshPaths();
    holdLock(paths);
    const error = await ensureDaemon(paths, { start: true, timeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(unavailableReason(error)).toBe('not_responding');
    expect((error as Error).message).toContain('but has had no socket');
  });
});
