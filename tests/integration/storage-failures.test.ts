import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeAll, expect, it } from 'vitest';

import { ScriptedProvider } from '../../native-host/src/agent/testing/scripted-provider.js';
import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { createLogger } from '../../native-host/src/core/logger.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { Daemon } from '../../native-host/src/daemon/daemon.js';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { FakePresence } from '../../native-host/src/scheduler/presence/fake-presence.js';
import type { Db } from '../../native-host/src/storage/database.js';
import { storageHealth } from '../../native-host/src/storage/storage-health.js';
import { holdWriteLock, type HeldLock } from '../../native-host/src/storage/testing/sqlite-lock.js';
import { exitOf, runCli, spawnDaemon } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Storage errors are conditions, not crashes. A database that cannot be written — another
 * process holding its lock past the busy timeout, a full disk, a read-only file — must not end
 * the daemon: what it writes for its own bookkeeping (a client came, a client left) waits in
 * memory and is written later, reading keeps working (`nextai status`, lists, `audit verify`),
 * and a run whose loop meets it waits, paused with the reason, and goes on by itself once writing
 * works again.
 */

const log = createLogger({ component: 'test', level: 'error' });
let home: TestHome | undefined;
let daemonProcess: ChildProcess | undefined;
let lock: HeldLock | undefined;
let daemon: Daemon | undefined;
let client: DaemonClient | undefined;
let dataDir: string | undefined;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await lock?.release();
  client?.close();
  await daemon?.stop('test done');
  if (daemonProcess && daemonProcess.exitCode === null && daemonProcess.signalCode === null) {
    daemonProcess.kill('SIGTERM');
    await exitOf(daemonProcess);
  }
  await home?.cleanup();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  lock = undefined;
  client = undefined;
  daemon = undefined;
  daemonProcess = undefined;
  home = undefined;
  dataDir = undefined;
});

/** The events of `type` in a database, read by a connection of the test's own. */
function eventsIn(file: string, type: string): Record<string, unknown>[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT data FROM events WHERE type = ? ORDER BY seq').pluck().all(type) as string[];
    return rows.map((row) => JSON.parse(row) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

it('a daemon whose database another process holds locked keeps answering, and survives its clients leaving', async () => {
  home = makeHome();
  const env = home.env;
  const dbFile = path.join(home.dir, 'data.db');
  daemonProcess = spawnDaemon(env);
  let status = await runCli(['status', '--json'], env);
  await expect
    .poll(async () => (status = await runCli(['status', '--json'], env)).code, { timeout: 20_000, interval: 200 })
    .toBe(0);
  const pid = (JSON.parse(status.stdout) as { pid: number }).pid;
  expect(pid).toBe(daemonProcess.pid);

  // Another process takes the write lock and keeps it (a backup tool, a second program on the file).
  lock = await holdWriteLock(dbFile);
  const lockedAt = Date.now();
  // Connecting writes "client connected" (and leaving "client disconnected"): the first waits out
  // SQLite's busy timeout (five seconds) and is kept for later; the rest are kept at once.
  status = await runCli(['status', '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid });
  const list = await runCli(['runs', 'list', '--json'], env);
  expect(list.code, list.stderr).toBe(0);
  const verify = await runCli(['audit', 'verify'], env);
  expect(verify.code, verify.stderr).toBe(0);
  expect(verify.stdout).toContain('audit log intact');
  // Longer than the busy timeout since the first client left: its "disconnected" has been dealt with.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lockedAt + 7000 - Date.now())));
  expect(daemonProcess.exitCode).toBeNull();
  expect(daemonProcess.signalCode).toBeNull();

  // The lock is let go: what waited is written, in order, and the same daemon goes on.
  await lock.release();
  lock = undefined;
  await expect.poll(() => eventsIn(dbFile, 'client.disconnected').length, { timeout: 10_000 }).toBe(4);
  expect(eventsIn(dbFile, 'client.connected')).toHaveLength(4);
  status = await runCli(['status', '--json'], env);
  expect(status.code, status.stderr).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid });
});

it('a run whose loop meets a read-only database waits with the reason, and goes on once it can write', async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-ro-'));
  const paths = dataPaths(dataDir);
  // The database turns read-only while the model answers. A read-only folder does not stop this
  // process (it runs as root here, and a folder remounted read-only still lets files already open
  // be written), so the daemon's own connection is made read-only: PRAGMA query_only, the same
  // SQLITE_READONLY a read-only file gives.
  const daemonDb: { db?: Db } = {};
  const readOnly = (on: boolean) => daemonDb.db?.pragma(`query_only = ${on ? 'ON' : 'OFF'}`);
  const provider = new ScriptedProvider([
    () => {
      readOnly(true);
      return { text: 'First try.' };
    },
    { text: 'Done.' },
  ]);
  daemon = await Daemon.start({
    paths,
    platform: 'linux',
    log,
    desktop: createFakeDesktop().desktop,
    presence: new FakePresence(),
    homeDir: dataDir,
    model: () => ({ provider, model: 'claude-sonnet-4-5', price: undefined }),
  });
  const db = (daemon as unknown as { db: Db }).db;
  daemonDb.db = db;
  storageHealth(db).retryMs = 100;
  client = await DaemonClient.connect(paths, { start: false });
  const get = async (id: string) => (await (client as DaemonClient).peer.request('runs.get', { id })).run;

  // Started directly: over its socket, the daemon's own process is not the person.
  const id = daemon.runManager.start({ goal: 'say something' }, 'the person (test)').id;
  await expect.poll(async () => (await get(id)).state, { timeout: 10_000 }).toBe('paused');
  const waiting = await get(id);
  expect(waiting.error).toMatchObject({ code: 'STORAGE_ERROR' });
  expect(waiting.error?.message).toMatch(/Waiting for the database to be writable again/);

  // Meanwhile a client comes and goes, and reading works.
  const other = await DaemonClient.connect(paths, { start: false, client: { name: 'another-client' } });
  other.close();
  await other.disconnected;
  const status = await client.peer.request('daemon.status', {});
  expect(status.running).toBe(true);
  const { runs } = await client.peer.request('runs.list', { state: 'paused', limit: 10 });
  expect(runs.map((run) => run.id)).toEqual([id]);
  expect(await client.peer.request('audit.verify', {})).toMatchObject({ ok: true });
  // Still waiting: nothing resumes it while the database cannot be written.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect((await get(id)).state).toBe('paused');

  readOnly(false);
  await expect.poll(async () => (await get(id)).state, { timeout: 10_000 }).toBe('finished');
  expect(await get(id)).toMatchObject({ result: 'Done.', error: null });
  // The bookkeeping that waited was written.
  await expect
    .poll(() => eventsIn(paths.database, 'client.disconnected').map((event) => event.name), { timeout: 10_000 })
    .toContain('another-client');
  const states = eventsIn(paths.database, 'run.state').map((event) => [event.state, event.error_code ?? event.reason]);
  expect(states).toEqual([
    ['queued', undefined],
    ['running', undefined],
    ['paused', 'STORAGE_ERROR'],
    ['running', 'the database can be written again'],
    ['finished', undefined],
  ]);
});
