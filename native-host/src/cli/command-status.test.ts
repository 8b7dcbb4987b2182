import { describe, expect, it } from 'vitest';

import { storageHealthReport } from '../storage/storage-problem.js';
import { storageLines } from './command-status.js';

const FILE = '/home/me/.nextai-agent/data.db';

describe('nextai status: storage', () => {
  it('says ok in one line while the database can be written', () => {
    expect(storageLines(storageHealthReport(undefined, FILE), 'en')).toEqual(['storage:   ok']);
  });

  it('says what is wrong, since when and what to do, in the terminal’s language', () => {
    const failure = { code: 'SQLITE_FULL', message: 'database or disk is full', since: '2026-01-02T03:04:05.000Z' };
    const report = storageHealthReport(failure, FILE);
    expect(storageLines(report, 'en')).toEqual([
      'storage:   CANNOT WRITE (SQLITE_FULL, since 2026-01-02T03:04:05.000Z)',
      '           The disk holding /home/me/.nextai-agent is full, so NextAI Agent cannot save anything.',
      '           To fix: Free space on the disk holding /home/me/.nextai-agent. NextAI Agent goes on by itself once it can write again.',
      '           Until then reading works (status, lists, audit verify); what must be saved waits or is refused.',
    ]);
    const chinese = storageLines(report, 'zh-CN');
    expect(chinese[0]).toBe('storage:   无法写入 (SQLITE_FULL，自 2026-01-02T03:04:05.000Z 起)');
    expect(chinese[2]).toContain('解决办法：请释放 /home/me/.nextai-agent 所在磁盘的空间');
  });

  it('warns when the data folder is on a network file system, and says where to keep it', () => {
    const lines = storageLines(storageHealthReport(undefined, FILE, { type: 'nfs4', mountPoint: '/home' }), 'en');
    expect(lines).toEqual([
      'storage:   ok',
      expect.stringMatching(
        /^ {11}WARNING: The data folder \/home\/me\/.nextai-agent is on a network file system \(nfs4, mounted at \/home\)\. SQLite's file locking is unreliable there/,
      ),
      expect.stringMatching(
        /^ {11}To fix: Keep the data folder on a local disk: .* set NEXTAI_HOME to its new place\.$/,
      ),
    ]);
    expect(
      storageLines(storageHealthReport(undefined, FILE, { type: 'cifs' }), 'zh-CN')[1]
        ?.trim()
        .startsWith('警告：'),
    ).toBe(true);
  });

  it('says a replaced database file restarts the daemon on the file now there', () => {
    const failure = { code: 'SQLITE_READONLY_DBMOVED', message: 'replaced', since: '2026-01-02T03:04:05.000Z' };
    const lines = storageLines(storageHealthReport(failure, FILE), 'en');
    expect(lines[0]).toBe('storage:   CANNOT WRITE (SQLITE_READONLY_DBMOVED, since 2026-01-02T03:04:05.000Z)');
    expect(lines[1]).toContain(`${FILE} was replaced or removed while NextAI Agent was running`);
    expect(lines[2]).toContain(`restarts by itself and uses the file now at ${FILE}`);
  });
});
