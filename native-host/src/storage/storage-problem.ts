import path from 'node:path';

import {
  AppError,
  say,
  translationsOf,
  type Localized,
  type StorageHealthReport,
  type StorageProblem,
} from '@nextai/shared';

import type { StorageFailure } from './storage-health.js';

/**
 * What a person is told when the database cannot be written: SQLite's code turned into what is
 * wrong and what to do about it, naming the folder. One place, so `nextai status`, the side
 * panel's banner, the OS notification and a refused request all say the same.
 */

/** The kind of problem behind one of SQLite's codes (extended codes included: SQLITE_IOERR_WRITE). */
export function problemOf(code: string): StorageProblem {
  if (/^SQLITE_FULL(_|$)/.test(code)) return 'disk_full';
  if (/^SQLITE_READONLY(_|$)/.test(code)) return 'read_only';
  // PROTOCOL: the WAL's locks kept changing under it — another process on the same file.
  if (/^SQLITE_(BUSY|LOCKED|PROTOCOL)(_|$)/.test(code)) return 'locked';
  if (/^SQLITE_(CANTOPEN|PERM|AUTH)(_|$)/.test(code)) return 'permission';
  return 'io_error';
}

/** What is wrong and how to fix it, for the database `file` in the folder `dir`. */
export function describeProblem(
  problem: StorageProblem,
  dir: string,
  file: string,
): { message: Localized; fix: Localized } {
  const goesOn = say(
    'NextAI Agent goes on by itself once it can write again.',
    '恢复写入后，NextAI Agent 会自动继续。',
  );
  const then = (en: string, zh: string) => say(`${en} ${goesOn.en}`, `${zh}${goesOn['zh-CN']}`);
  switch (problem) {
    case 'disk_full':
      return {
        message: say(
          `The disk holding ${dir} is full, so NextAI Agent cannot save anything.`,
          `${dir} 所在的磁盘已满，NextAI Agent 无法保存任何内容。`,
        ),
        fix: then(`Free space on the disk holding ${dir}.`, `请释放 ${dir} 所在磁盘的空间。`),
      };
    case 'read_only':
      return {
        message: say(
          `The database in ${dir} has become read-only, so NextAI Agent cannot save anything.`,
          `${dir} 中的数据库变成了只读，NextAI Agent 无法保存任何内容。`,
        ),
        fix: then(
          `Make ${dir} and the files in it writable for this user (or remount its disk read-write).`,
          `请让当前用户可以写入 ${dir} 及其中的文件（或以读写方式重新挂载该磁盘）。`,
        ),
      };
    case 'locked':
      return {
        message: say(
          `Another program holds the lock on ${file}, so NextAI Agent cannot save anything.`,
          `另一个程序锁住了 ${file}，NextAI Agent 无法保存任何内容。`,
        ),
        fix: then(
          `Close the other program using ${file} (a backup or sync tool, an SQLite browser, a second NextAI Agent).`,
          `请关闭正在使用 ${file} 的其他程序（备份或同步工具、SQLite 浏览器、另一个 NextAI Agent）。`,
        ),
      };
    case 'permission':
      return {
        message: say(
          `NextAI Agent may not open the files in ${dir}, so it cannot save anything.`,
          `NextAI Agent 无法打开 ${dir} 中的文件，因此无法保存任何内容。`,
        ),
        fix: then(
          `Make ${dir} readable and writable for this user (check its owner and permissions).`,
          `请让当前用户可以读写 ${dir}（检查它的所有者和权限）。`,
        ),
      };
    case 'io_error':
      return {
        message: say(
          `The disk holding ${dir} reported an error while NextAI Agent was saving.`,
          `NextAI Agent 保存时，${dir} 所在的磁盘报告了错误。`,
        ),
        fix: then(
          `Check the disk holding ${dir}: it may be full, disconnected or failing.`,
          `请检查 ${dir} 所在的磁盘：它可能已满、已断开或出现故障。`,
        ),
      };
  }
}

/** The database's health as clients are told it (`daemon.status`, the `storage.health` event). */
export function storageHealthReport(failure: StorageFailure | undefined, file: string): StorageHealthReport {
  const dir = path.dirname(file);
  if (!failure) return { ok: true, data_dir: dir };
  const problem = problemOf(failure.code);
  const { message, fix } = describeProblem(problem, dir, file);
  return {
    ok: false,
    data_dir: dir,
    problem,
    code: failure.code,
    since: failure.since,
    message: message.en,
    message_translations: translationsOf(message),
    fix: fix.en,
    fix_translations: translationsOf(fix),
  };
}

/**
 * The error a write that could not be made is refused with: what was not saved (`what`, e.g.
 * "the answer to the approval request"), why, and what to do — in every language.
 */
export function storageWriteError(what: Localized, failure: { code: string }, file: string, cause?: unknown): AppError {
  const problem = problemOf(failure.code);
  const { message, fix } = describeProblem(problem, path.dirname(file), file);
  return new AppError(
    'STORAGE_ERROR',
    say(
      `Could not save ${what.en}: ${message.en} ${fix.en} (${failure.code})`,
      `无法保存${what['zh-CN']}：${message['zh-CN']}${fix['zh-CN']}（${failure.code}）`,
    ),
    { cause, details: { problem, code: failure.code, data_dir: path.dirname(file) } },
  );
}
