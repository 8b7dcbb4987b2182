/**
 * Time from "the disk is full" to the person being told, with the daemon as its own process on a
 * tmpfs of its own (root only; said so otherwise): the disk is filled, then the next thing that
 * writes (a client connecting, as the panel or the CLI does) meets it. Measured from the fill to
 * the `storage.health` event a subscribed client receives (what the panel's banner shows) and to
 * the OS notification (a stand-in notify-send on PATH records when it was called).
 * Prints; asserts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { DaemonEvent } from '@nextai/shared';

import { exitOf, spawnDaemon } from '../support/cli.js';
import { fakeNotifySend, fillDisk, mountTmpfs, notificationsShown, unmount } from '../support/disk.js';
import { makeHome } from '../support/home.js';
import { connectWhenUp } from './daemon-up.js';

async function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function benchDiskFull(): Promise<string[]> {
  const title =
    'A full disk told to the person (daemon on a tmpfs of its own, filled while it runs; a client connecting is the next write):';
  const home = makeHome('nx-bench-disk-');
  const cannotMount = mountTmpfs(home.dir, '32m');
  if (cannotMount !== undefined) {
    await home.cleanup();
    return [title, `  not measured: ${cannotMount}`];
  }
  const binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bench-bin-'));
  const log = path.join(binDir, 'notifications.jsonl');
  fakeNotifySend(binDir, log);
  const daemon = spawnDaemon({ ...home.env, NEXTAI_LOG_LEVEL: 'warn', PATH: `${binDir}:${process.env.PATH ?? ''}` });
  try {
    const watcher = await connectWhenUp(home.dir);
    const heard: { at: number; event: DaemonEvent }[] = [];
    watcher.peer.onNotification('event', (event) => heard.push({ at: Date.now(), event }));
    await watcher.peer.request('events.subscribe', {
      after_seq: (await watcher.peer.request('daemon.status', {})).last_event_seq,
    });
    fillDisk(path.join(home.dir, 'filler'));
    const filled = Date.now();
    // The next write the daemon makes: a client coming (its "connected" event).
    const visitor = await connectWhenUp(home.dir);
    const told = await until(
      () => heard.find(({ event }) => event.type === 'storage.health' && event.data.ok === false),
      30_000,
    );
    const notified = await until(() => notificationsShown(log)[0], 30_000);
    visitor.close();
    watcher.close();
    return [
      title,
      `  disk full → storage.health event (the panel's banner): ${told.at - filled} ms`,
      `  disk full → OS notification:                         ${notified.at - filled} ms ("${notified.title}")`,
    ];
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup().catch(() => undefined);
    unmount(home.dir);
    fs.rmSync(home.dir, { recursive: true, force: true });
    fs.rmSync(binDir, { recursive: true, force: true });
  }
}
