import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { StorageHealthReport } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import type { Logger } from '../core/logger.js';
import type { StorageFailure } from '../storage/storage-health.js';
import { StorageAlerts, notificationLocale, type HealthSource } from './storage-alerts.js';

const FILE = '/data/nextai/data.db';

/** The database's health as the alerts see it, changed by hand. */
class FakeHealth implements HealthSource {
  failing: StorageFailure | undefined;
  private readonly listeners = new Set<() => void>();
  private count = 0;
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  fail(code: string): void {
    this.failing = { code, message: 'sqlite says no', since: `2026-01-01T00:00:0${this.count++}.000Z` };
    for (const listener of this.listeners) listener();
  }
  recover(): void {
    this.failing = undefined;
    for (const listener of this.listeners) listener();
  }
  /** A change told again with nothing changed (a listener queued twice). */
  tellAgain(): void {
    for (const listener of this.listeners) listener();
  }
}

function setUp(options: { locale?: 'en' | 'zh-CN' } = {}) {
  const health = new FakeHealth();
  const announced: StorageHealthReport[] = [];
  const notified: { title: string; body: string; urgency: string }[] = [];
  let now = 0;
  const alerts = new StorageAlerts({
    health,
    file: FILE,
    announce: (report) => announced.push(report),
    notify: async (title, body, urgency) => {
      notified.push({ title, body, urgency });
      return { delivered: true };
    },
    locale: () => options.locale ?? 'en',
    now: () => now,
    quietMs: 60_000,
  });
  return { health, alerts, announced, notified, advance: (ms: number) => (now += ms) };
}

describe('storage alerts', () => {
  it('reports ok, then what is wrong and what to do, then ok again', () => {
    const { health, alerts } = setUp();
    expect(alerts.report()).toEqual({ ok: true, data_dir: '/data/nextai' });
    health.fail('SQLITE_FULL');
    expect(alerts.report()).toMatchObject({
      ok: false,
      problem: 'disk_full',
      code: 'SQLITE_FULL',
      since: '2026-01-01T00:00:00.000Z',
      data_dir: '/data/nextai',
      fix: expect.stringContaining('Free space on the disk holding /data/nextai') as string,
    });
    health.recover();
    expect(alerts.report()).toEqual({ ok: true, data_dir: '/data/nextai' });
  });

  it('announces each change and notifies once per episode, not once per failed write', () => {
    const { health, announced, notified } = setUp();
    health.fail('SQLITE_READONLY');
    health.tellAgain();
    health.tellAgain();
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ ok: false, problem: 'read_only' });
    expect(notified).toEqual([
      {
        title: 'NextAI Agent cannot save',
        body: expect.stringContaining('Make /data/nextai and the files in it writable') as string,
        urgency: 'critical',
      },
    ]);

    health.recover();
    health.tellAgain();
    expect(announced).toHaveLength(2);
    expect(announced[1]).toEqual({
      ok: true,
      data_dir: '/data/nextai',
      recovered_from: { problem: 'read_only', code: 'SQLITE_READONLY', since: '2026-01-01T00:00:00.000Z' },
    });
    expect(notified).toHaveLength(2);
    expect(notified[1]).toMatchObject({ title: 'NextAI Agent can save again', urgency: 'normal' });
  });

  it('does not notify the same problem again within the quiet time, but still announces it', () => {
    const { health, announced, notified, advance } = setUp();
    health.fail('SQLITE_BUSY');
    health.recover();
    expect(notified).toHaveLength(2);
    // A lock that comes back a minute later (a backup tool): the banner follows, the desktop is left alone.
    advance(30_000);
    health.fail('SQLITE_BUSY');
    health.recover();
    expect(announced.map((report) => report.ok)).toEqual([false, true, false, true]);
    expect(notified).toHaveLength(2);
    // Another problem is news.
    health.fail('SQLITE_FULL');
    expect(notified).toHaveLength(3);
    health.recover();
    // And the same one after the quiet time.
    advance(61_000);
    health.fail('SQLITE_BUSY');
    expect(notified.map((notice) => notice.title)).toEqual([
      'NextAI Agent cannot save',
      'NextAI Agent can save again',
      'NextAI Agent cannot save',
      'NextAI Agent can save again',
      'NextAI Agent cannot save',
    ]);
  });

  it('writes the notification in the person’s language', () => {
    const { health, notified } = setUp({ locale: 'zh-CN' });
    health.fail('SQLITE_FULL');
    expect(notified[0]).toMatchObject({ title: 'NextAI Agent 无法保存' });
    expect(notified[0]?.body).toContain('请释放 /data/nextai 所在磁盘的空间');
  });

  it('says in the log when the notification could not be shown, and goes on', async () => {
    const health = new FakeHealth();
    const warned: unknown[] = [];
    new StorageAlerts({
      health,
      file: FILE,
      announce: () => undefined,
      notify: async () => ({ delivered: false, reason: 'no notification daemon' }),
      locale: () => 'en',
      log: { warn: (...args: unknown[]) => warned.push(args) } as unknown as Logger,
    });
    health.fail('SQLITE_FULL');
    await expect
      .poll(() => warned)
      .toEqual([['could not show the storage notification', { reason: 'no notification daemon' }]]);
  });

  it('says a replaced database file in its own words, and lets the daemon wait for the notification', async () => {
    const health = new FakeHealth();
    const shown: string[] = [];
    let show!: () => void;
    const alerts = new StorageAlerts({
      health,
      file: FILE,
      announce: () => undefined,
      notify: (title) =>
        new Promise((resolve) => {
          show = () => {
            shown.push(title);
            resolve({ delivered: true });
          };
        }),
      locale: () => 'en',
      network: { type: 'nfs4', mountPoint: '/data' },
    });
    health.fail('SQLITE_READONLY_DBMOVED');
    expect(alerts.report()).toMatchObject({
      problem: 'replaced',
      message: expect.stringContaining('/data/nextai/data.db was replaced or removed') as string,
      network_file_system: { type: 'nfs4', mount_point: '/data' },
    });
    let settled = false;
    const notified = alerts.notified().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    show();
    await notified;
    expect(shown).toEqual(['NextAI Agent restarts: its database was replaced']);
  });

  it('announces a database already failing when it starts', () => {
    const health = new FakeHealth();
    health.failing = { code: 'SQLITE_FULL', message: 'full', since: '2026-01-01T00:00:00.000Z' };
    const announced: StorageHealthReport[] = [];
    new StorageAlerts({
      health,
      file: FILE,
      announce: (report) => announced.push(report),
      notify: async () => ({ delivered: true }),
      locale: () => 'en',
    });
    expect(announced).toMatchObject([{ ok: false, problem: 'disk_full' }]);
  });
});

describe('notificationLocale', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('follows the panel’s language in config.json, else the environment', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-locale-'));
    const file = path.join(dir, 'config.json');
    expect(notificationLocale(file, { LANG: 'zh_CN.UTF-8' })).toBe('zh-CN');
    expect(notificationLocale(file, { LANG: 'en_US.UTF-8' })).toBe('en');
    fs.writeFileSync(file, '{ // the panel chose\n "ui": { "language": "zh-CN" } }');
    expect(notificationLocale(file, { LANG: 'en_US.UTF-8' })).toBe('zh-CN');
    fs.writeFileSync(file, '{ "ui": { "language": "auto" } }');
    expect(notificationLocale(file, { LC_ALL: 'zh_TW.UTF-8', LANG: 'en_US.UTF-8' })).toBe('zh-CN');
  });
});
