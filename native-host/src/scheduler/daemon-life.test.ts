import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { currentBoot, LifeRecord, sameBoot } from './daemon-life.js';

const log = createLogger({ component: 'test', level: 'error' });
const T0 = Date.parse('2025-06-02T09:00:00Z');
const BOOT = { id: 'boot-1', bootedAt: T0 - 3_600_000 };
let dir: string;

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-life-'));
  return path.join(dir, 'scheduler-life.json');
}

describe('the record of a daemon’s life', () => {
  it('says whether the last daemon stopped cleanly, in which boot it ran, and a database fault while it lasted', () => {
    const where = file();
    expect(new LifeRecord(where, log).read()).toBeUndefined();
    const first = new LifeRecord(where, log);
    first.begin(T0, BOOT);
    expect(new LifeRecord(where, log).read()).toMatchObject({ pid: process.pid, startedAt: T0, boot: BOOT });
    expect(new LifeRecord(where, log).read()?.stoppedAt).toBeUndefined();

    first.storage({ code: 'SQLITE_FULL', since: new Date(T0 + 1000).toISOString() });
    expect(new LifeRecord(where, log).read()?.storageFault).toEqual({ code: 'SQLITE_FULL', since: T0 + 1000 });
    first.storage(undefined);
    expect(new LifeRecord(where, log).read()?.storageFault).toBeUndefined();
    first.stopped(T0 + 5000);
    expect(new LifeRecord(where, log).read()?.stoppedAt).toBe(T0 + 5000);
    expect(fs.statSync(where).mode & 0o777).toBe(0o600);
  });

  it('a daemon writes only its own record: one that started after it is left alone', () => {
    const where = file();
    const earlier = new LifeRecord(where, log);
    earlier.begin(T0, BOOT);
    const later = new LifeRecord(where, log);
    later.begin(T0 + 1000, BOOT);
    earlier.stopped(T0 + 2000);
    expect(new LifeRecord(where, log).read()).toMatchObject({ startedAt: T0 + 1000 });
    expect(new LifeRecord(where, log).read()?.stoppedAt).toBeUndefined();
  });

  it('an unreadable record is no record', () => {
    const where = file();
    fs.writeFileSync(where, '{"life": 3');
    expect(new LifeRecord(where, log).read()).toBeUndefined();
    fs.writeFileSync(where, JSON.stringify({ life: 'x', pid: 1, started_at: 'never', booted_at: 'never' }));
    expect(new LifeRecord(where, log).read()).toBeUndefined();
  });

  it('a boot is the same boot by its id, or else by boot times minutes apart at most', () => {
    expect(sameBoot({ id: 'a', bootedAt: 0 }, { id: 'a', bootedAt: 10 * 3_600_000 })).toBe(true);
    expect(sameBoot({ id: 'a', bootedAt: 0 }, { id: 'b', bootedAt: 0 })).toBe(false);
    expect(sameBoot({ bootedAt: 0 }, { bootedAt: 60_000 })).toBe(true);
    expect(sameBoot({ bootedAt: 0 }, { bootedAt: 3_600_000 })).toBe(false);
    const now = currentBoot();
    expect(sameBoot(now, currentBoot())).toBe(true);
    expect(now.bootedAt).toBeLessThanOrEqual(Date.now());
  });
});
