import { execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { DaemonEvent } from '@nextai/shared';
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
import { fakeNotifySend, fillDisk, mountTmpfs as mountDisk, notificationsShown } from '../support/disk.js';

/**
 * Storage errors are conditions, not crashes. A database that cannot be written — another
 * process holding its lock past the busy timeout, a full disk, a read-only file — must not end
 * the daemon: what it writes for its own bookkeeping (a client came, a client left) waits in
 * memory and is written later, reading keeps working (`nextai status`, lists, `audit verify`),
 * and a run whose loop meets it waits, paused with the reason, and goes on by itself once writing
 * works again. The person is told: `nextai status`, a `storage.health` event for the side panel's
 * banner and an OS notification say what is wrong and how to fix it, and what someone asked to
 * save is refused whole with a STORAGE_ERROR that says so.
 */

const log = createLogger({ component: 'test', level: 'error' });
let home: TestHome | undefined;
let daemonProcess: ChildProcess | undefined;
let lock: HeldLock | undefined;
let daemon: Daemon | undefined;
let client: DaemonClient | undefined;
let dataDir: string | undefined;
/** A tmpfs mounted over a test's data folder, unmounted once its daemon has ended. */
let mounted: string | undefined;
/** Where the fake notify-send writes what it was asked to show. */
let binDir: string | undefined;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await lock?.release();
  client?.close();
  await daemon?.stop('test done');
  if (daemonProcess && daemonProcess.exitCode === null && daemonProcess.signalCode === null) {
    daemonProcess.kill('SIGTERM');
    await exitOf(daemonProcess);
  }
  if (mounted) execFileSync('umount', [mounted]);
  await home?.cleanup();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  if (binDir) fs.rmSync(binDir, { recursive: true, force: true });
  mounted = undefined;
  binDir = undefined;
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
  // Exactly one client before the lock (the counts below rely on it): asked again only while the
  // daemon is not up yet.
  let status = await runCli(['status', '--json'], env);
  if (status.code !== 0) {
    await expect
      .poll(async () => (status = await runCli(['status', '--json'], env)).code, { timeout: 20_000, interval: 200 })
      .toBe(0);
  }
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
  // And says what is wrong: the lock, held by another program, and how to fix it.
  const locked = (JSON.parse(status.stdout) as { storage: Record<string, unknown> }).storage;
  expect(locked).toMatchObject({ ok: false, problem: 'locked', code: 'SQLITE_BUSY', data_dir: home.dir });
  expect(locked.fix).toContain(`Close the other program using ${dbFile}`);
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
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid, storage: { ok: true } });
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

/** A tmpfs over `dir`, unmounted after the test; why it could not be mounted otherwise. */
function mountTmpfs(dir: string, size: string): string | undefined {
  const cannot = mountDisk(dir, size);
  if (cannot === undefined) mounted = dir;
  return cannot;
}

/** The notifications the fake notify-send showed: [title, body] each. */
function shown(log: string): [string, string][] {
  return notificationsShown(log).map(({ title, body }) => [title, body]);
}

it('a daemon whose disk fills up says so — status, an event, one notification — refuses what it cannot save, and recovers', async (context) => {
  home = makeHome();
  const cannotMount = mountTmpfs(home.dir, '32m');
  context.skip(cannotMount !== undefined, cannotMount);
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bin-'));
  const notifications = path.join(binDir, 'notifications.jsonl');
  fakeNotifySend(binDir, notifications);
  const env = { ...home.env, PATH: `${binDir}:${process.env.PATH ?? ''}`, LANG: 'en_US.UTF-8' };
  const dir = home.dir;
  daemonProcess = spawnDaemon(env);
  await expect
    .poll(async () => (await runCli(['status', '--json'], env)).code, { timeout: 20_000, interval: 200 })
    .toBe(0);
  let status = await runCli(['status', '--json'], env);
  expect(JSON.parse(status.stdout)).toMatchObject({ storage: { ok: true, data_dir: dir } });
  expect((await runCli(['status'], env)).stdout).toContain('storage:   ok');

  // The side panel's view of it: subscribed to the daemon's events.
  client = await DaemonClient.connect(dataPaths(dir), { start: false });
  const heard: DaemonEvent[] = [];
  client.peer.onNotification('event', (event) => heard.push(event));
  await client.peer.request('events.subscribe', {
    after_seq: (await client.peer.request('daemon.status', {})).last_event_seq,
  });
  const storageEvents = () => heard.filter((event) => event.type === 'storage.health').map((event) => event.data);

  // The disk fills up. The next thing the daemon writes (a client coming) meets it.
  fillDisk(path.join(dir, 'filler'));
  await expect
    .poll(async () => JSON.parse((status = await runCli(['status', '--json'], env)).stdout).storage?.ok, {
      timeout: 20_000,
      interval: 200,
    })
    .toBe(false);
  expect(status.code, status.stderr).toBe(0);
  const report = (JSON.parse(status.stdout) as { storage: Record<string, unknown> }).storage;
  expect(report).toMatchObject({ ok: false, problem: 'disk_full', code: 'SQLITE_FULL', data_dir: dir });
  expect(report.fix).toContain(`Free space on the disk holding ${dir}.`);
  expect(report.fix_translations).toMatchObject({ 'zh-CN': expect.stringContaining(`请释放 ${dir} 所在磁盘的空间`) });
  const text = await runCli(['status'], env);
  expect(text.stdout).toMatch(/storage: {3}CANNOT WRITE \(SQLITE_FULL, since \d{4}-/);
  expect(text.stdout).toContain(`To fix: Free space on the disk holding ${dir}.`);

  // Told to the clients connected, and to the desktop.
  await expect
    .poll(storageEvents, { timeout: 10_000 })
    .toEqual([expect.objectContaining({ ok: false, problem: 'disk_full' })]);
  await expect.poll(() => shown(notifications), { timeout: 10_000 }).toHaveLength(1);
  expect(shown(notifications)[0]).toEqual([
    'NextAI Agent cannot save',
    expect.stringContaining(`Free space on the disk holding ${dir}.`),
  ]);

  // Reading works; what must be saved is refused whole, saying why.
  expect((await runCli(['runs', 'list', '--json'], env)).code).toBe(0);
  expect((await runCli(['approvals', 'list'], env)).code).toBe(0);
  const verify = await runCli(['audit', 'verify'], env);
  expect(verify.code, verify.stderr).toBe(0);
  expect(verify.stdout).toContain('audit log intact');
  const added = await runCli(
    ['schedule', 'add', '--name', 'morning', '--cron', '0 9 * * *', '--steps', JSON.stringify([{ tool: 'system_info', input: { categories: ['os'] } }])],
    env,
  ); // prettier-ignore
  expect(added.code).not.toBe(0);
  expect(added.stderr).toContain('Could not save the new scheduled task: The disk holding');
  expect(added.stderr).toContain('Free space on the disk holding');
  await expect(client.peer.request('policy.set_template', { template: 'strict' })).rejects.toMatchObject({
    code: 'STORAGE_ERROR',
    details: { problem: 'disk_full' },
  });
  expect(fs.existsSync(path.join(dir, 'config.json'))).toBe(false);
  // However many writes failed, one episode, one notification.
  expect(shown(notifications)).toHaveLength(1);
  expect(storageEvents()).toHaveLength(1);

  // Space is freed: the daemon finds out by itself, and says so.
  fs.rmSync(path.join(dir, 'filler'));
  await expect
    .poll(async () => JSON.parse((await runCli(['status', '--json'], env)).stdout).storage, {
      timeout: 20_000,
      interval: 200,
    })
    .toEqual({ ok: true, data_dir: dir });
  await expect.poll(storageEvents, { timeout: 10_000 }).toHaveLength(2);
  expect(storageEvents()[1]).toEqual({
    ok: true,
    data_dir: dir,
    recovered_from: { problem: 'disk_full', code: 'SQLITE_FULL', since: report.since },
  });
  await expect
    .poll(() => shown(notifications).map(([title]) => title), { timeout: 10_000 })
    .toEqual(['NextAI Agent cannot save', 'NextAI Agent can save again']);
  // The same daemon goes on, and what was refused can be made now.
  const again = await runCli(
    ['schedule', 'add', '--name', 'morning', '--cron', '0 9 * * *', '--steps', JSON.stringify([{ tool: 'system_info', input: { categories: ['os'] } }])],
    env,
  ); // prettier-ignore
  expect(again.code, again.stderr).toBe(0);
  expect(daemonProcess.exitCode).toBeNull();
  // The episode is in the event log, in order, once it could be written.
  expect(eventsIn(path.join(dir, 'data.db'), 'storage.health').map((event) => event.ok)).toEqual([false, true]);
});

/** A scheduled task named `name` (what the test saves, and looks for in each database). */
function addSchedule(name: string, env: NodeJS.ProcessEnv) {
  return runCli(
    ['schedule', 'add', '--name', name, '--cron', '0 9 * * *', '--steps', JSON.stringify([{ tool: 'system_info', input: { categories: ['os'] } }])],
    env,
  ); // prettier-ignore
}

/** What a database file holds that the test looks at: its scheduled tasks and its last event. */
function contentOf(file: string): { schedules: string[]; lastSeq: number } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      schedules: db.prepare('SELECT name FROM schedules ORDER BY name').pluck().all() as string[],
      lastSeq: (db.prepare('SELECT MAX(seq) FROM events').pluck().get() as number | null) ?? 0,
    };
  } finally {
    db.close();
  }
}

function hashOf(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

it('a daemon whose data.db is replaced while it runs notices, writes nothing more into the old file, keeps a copy, and restarts on the new one', async () => {
  home = makeHome();
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bin-'));
  const notifications = path.join(binDir, 'notifications.jsonl');
  fakeNotifySend(binDir, notifications);
  const env = { ...home.env, PATH: `${binDir}:${process.env.PATH ?? ''}`, LANG: 'en_US.UTF-8' };
  const dir = home.dir;
  const dbFile = path.join(dir, 'data.db');
  daemonProcess = spawnDaemon(env);
  const exited = exitOf(daemonProcess);
  await expect
    .poll(async () => (await runCli(['status', '--json'], env)).code, { timeout: 20_000, interval: 200 })
    .toBe(0);
  const firstPid = daemonProcess.pid;

  // A backup is taken (SQLite's online backup, as a backup tool would), between two saved tasks.
  expect((await addSchedule('before-backup', env)).code).toBe(0);
  const backup = path.join(dir, 'backup.db');
  const reader = new Database(dbFile, { readonly: true });
  await reader.backup(backup);
  reader.close();
  expect((await addSchedule('after-backup', env)).code).toBe(0);

  // The side panel's view: subscribed to the daemon's events.
  client = await DaemonClient.connect(dataPaths(dir), { start: false });
  const heard: DaemonEvent[] = [];
  client.peer.onNotification('event', (event) => heard.push(event));
  await client.peer.request('events.subscribe', {
    after_seq: (await client.peer.request('daemon.status', {})).last_event_seq,
  });
  const storageEvents = () => heard.filter((event) => event.type === 'storage.health').map((event) => event.data);

  // Hard links keep the old file and its WAL where the test can look at them once they leave the path.
  const orphan = path.join(dir, 'orphan.db');
  fs.linkSync(dbFile, orphan);
  fs.linkSync(`${dbFile}-wal`, `${orphan}-wal`);

  // The backup is restored over data.db while the daemon runs: a copy renamed over it.
  fs.copyFileSync(backup, path.join(dir, 'restoring.db'));
  fs.renameSync(path.join(dir, 'restoring.db'), dbFile);

  // Noticed within a few seconds, and said: the event (the panel's banner), the log, one notification.
  await expect
    .poll(storageEvents, { timeout: 10_000 })
    .toContainEqual(expect.objectContaining({ ok: false, problem: 'replaced', code: 'SQLITE_READONLY_DBMOVED' }));
  const said = storageEvents().find((event) => (event as { problem?: string }).problem === 'replaced') as {
    message: string;
    fix: string;
  };
  expect(said.message).toContain(`${dbFile} was replaced or removed while NextAI Agent was running`);
  expect(said.fix).toContain(`restarts by itself and uses the file now at ${dbFile}`);
  const oldFile = hashOf(orphan);
  const oldWal = hashOf(`${orphan}-wal`);
  // What is asked of it now is not written into the old file (refused, or the daemon is gone already).
  await expect(client.peer.request('policy.set_template', { template: 'strict' })).rejects.toThrow();

  // It stops by itself, with the exit code that has it started again.
  expect(await exited).toBe(75);
  client.close();
  client = undefined;
  await expect
    .poll(() => shown(notifications), { timeout: 10_000 })
    .toEqual([['NextAI Agent restarts: its database was replaced', expect.stringContaining(`${dbFile} was replaced`)]]);
  await expect
    .poll(() => fs.readFileSync(path.join(dir, 'logs', 'daemon.log'), 'utf8'), { timeout: 10_000 })
    .toContain('the database file was replaced or removed: nothing more is written into the old one');

  // Nothing went into the old file after it was noticed, and nothing is lost: a copy of the old
  // database, as the daemon last had it, is next to data.db.
  expect(hashOf(orphan)).toBe(oldFile);
  expect(hashOf(`${orphan}-wal`)).toBe(oldWal);
  const copies = fs.readdirSync(dir).filter((name) => /^data\.db\.replaced-.*\.bak$/.test(name));
  expect(copies).toHaveLength(1);
  const kept = contentOf(path.join(dir, copies[0] as string));
  expect(kept.schedules).toEqual(['after-backup', 'before-backup']);
  expect(contentOf(orphan)).toEqual(kept);
  // The old WAL did not stay at the path to be laid over the restored file.
  expect(fs.existsSync(`${dbFile}-wal`)).toBe(false);

  // Started again (here by the next command, as the bridge or the service manager would), it
  // works on the restored file: what the backup held, and what is saved now.
  expect((await addSchedule('after-restart', env)).code).toBe(0);
  const status = await runCli(['status', '--json'], env);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true, storage: { ok: true } });
  expect((JSON.parse(status.stdout) as { pid: number }).pid).not.toBe(firstPid);
  const listed = JSON.parse((await runCli(['schedule', 'list', '--json'], env)).stdout) as {
    schedules: { name: string }[];
  };
  expect(listed.schedules.map((schedule) => schedule.name).sort()).toEqual(['after-restart', 'before-backup']);
  expect(contentOf(dbFile).schedules).toEqual(['after-restart', 'before-backup']);
});
