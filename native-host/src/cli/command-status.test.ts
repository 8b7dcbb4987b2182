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
});
