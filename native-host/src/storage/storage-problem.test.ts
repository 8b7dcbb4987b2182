import { describe, expect, it } from 'vitest';

import { problemOf, storageHealthReport, storageWriteError } from './storage-problem.js';

const FILE = '/home/me/.nextai-agent/data.db';
const DIR = '/home/me/.nextai-agent';

describe('what a storage failure is told as', () => {
  it('names the problem behind each of SQLite’s codes, extended codes included', () => {
    expect(problemOf('SQLITE_FULL')).toBe('disk_full');
    expect(problemOf('SQLITE_READONLY')).toBe('read_only');
    expect(problemOf('SQLITE_READONLY_DIRECTORY')).toBe('read_only');
    expect(problemOf('SQLITE_BUSY')).toBe('locked');
    expect(problemOf('SQLITE_BUSY_SNAPSHOT')).toBe('locked');
    expect(problemOf('SQLITE_LOCKED')).toBe('locked');
    expect(problemOf('SQLITE_PROTOCOL')).toBe('locked');
    expect(problemOf('SQLITE_CANTOPEN')).toBe('permission');
    expect(problemOf('SQLITE_CANTOPEN_ISDIR')).toBe('permission');
    expect(problemOf('SQLITE_IOERR_WRITE')).toBe('io_error');
    expect(problemOf('SQLITE_IOERR')).toBe('io_error');
  });

  it('reports a database that works as ok, with its folder', () => {
    expect(storageHealthReport(undefined, FILE)).toEqual({ ok: true, data_dir: DIR });
  });

  it('reports a failure with what is wrong, since when and what to do, in both languages', () => {
    const since = '2026-01-02T03:04:05.000Z';
    const full = storageHealthReport({ code: 'SQLITE_FULL', message: 'database or disk is full', since }, FILE);
    expect(full).toMatchObject({ ok: false, data_dir: DIR, problem: 'disk_full', code: 'SQLITE_FULL', since });
    expect(full.message).toBe(`The disk holding ${DIR} is full, so NextAI Agent cannot save anything.`);
    expect(full.fix).toMatch(new RegExp(`^Free space on the disk holding ${DIR}\\. `));
    expect(full.fix_translations?.['zh-CN']).toContain(`请释放 ${DIR} 所在磁盘的空间`);
    expect(full.message_translations?.['zh-CN']).toContain('磁盘已满');

    const readOnly = storageHealthReport({ code: 'SQLITE_READONLY', message: 'attempt to write', since }, FILE);
    expect(readOnly.fix).toContain(`Make ${DIR} and the files in it writable for this user`);
    const locked = storageHealthReport({ code: 'SQLITE_BUSY', message: 'database is locked', since }, FILE);
    expect(locked.message).toContain(`Another program holds the lock on ${FILE}`);
    expect(locked.fix).toContain(`Close the other program using ${FILE}`);
    const denied = storageHealthReport({ code: 'SQLITE_CANTOPEN', message: 'unable to open', since }, FILE);
    expect(denied.fix).toContain(`Make ${DIR} readable and writable for this user`);
    const broken = storageHealthReport({ code: 'SQLITE_IOERR_WRITE', message: 'disk I/O error', since }, FILE);
    expect(broken.fix).toContain(`Check the disk holding ${DIR}`);
  });

  it('refuses a write with STORAGE_ERROR saying what was not saved, why and what to do', () => {
    const cause = new Error('database or disk is full');
    const error = storageWriteError(
      { en: 'the answer to the approval request', 'zh-CN': '对审批请求的答复' },
      { code: 'SQLITE_FULL' },
      FILE,
      cause,
    );
    expect(error).toMatchObject({
      code: 'STORAGE_ERROR',
      cause,
      details: { problem: 'disk_full', code: 'SQLITE_FULL', data_dir: DIR },
    });
    expect(error.message).toMatch(
      new RegExp(`^Could not save the answer to the approval request: The disk holding ${DIR} is full.* Free space`),
    );
    expect(error.message).toContain('(SQLITE_FULL)');
    expect(error.translations?.['zh-CN']).toMatch(/^无法保存对审批请求的答复：/);
  });
});
