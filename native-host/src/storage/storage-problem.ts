import path from 'node:path';

import {
  AppError,
  say,
  translationsOf,
  type Localized,
  type StorageHealthReport,
  type StorageProblem,
} from '@nextai/shared';

import type { NetworkFileSystem } from './network-file-system.js';
import type { StorageFailure } from './storage-health.js';

/**
 * What a person is told when the database cannot be written: SQLite's code turned into what is
 * wrong and what to do about it, naming the folder. One place, so `nextai status`, the side
 * panel's banner, the OS notification and a refused request all say the same.
 */

/** SQLITE_READONLY_DBMOVED: the file at the database's path is no longer the one the connection has open. */
export const DATABASE_MOVED_CODE = 'SQLITE_READONLY_DBMOVED';

/** The kind of problem behind one of SQLite's codes (extended codes included: SQLITE_IOERR_WRITE). */
export function problemOf(code: string): StorageProblem {
  // SQLite's own code for a database file moved since it was opened; database-file.ts reports the
  // file replaced or removed under the daemon with it too.
  if (code === DATABASE_MOVED_CODE) return 'replaced';
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
    case 'replaced': {
      const name = path.basename(file);
      return {
        message: say(
          `${file} was replaced or removed while NextAI Agent was running, so NextAI Agent saves nothing more into the file it had open.`,
          `NextAI Agent 运行期间，${file} 被替换或删除了，因此 NextAI Agent 不再向它原先打开的文件保存任何内容。`,
        ),
        fix: say(
          `Nothing to do: NextAI Agent restarts by itself and uses the file now at ${file} (a new, empty one if it was removed). What it had saved until then is kept in ${dir} as ${name}.replaced-<time>.bak. Runs that were going on wait for you to resume them.`,
          `无需操作：NextAI Agent 会自动重启，并使用现在位于 ${file} 的文件（若已删除则新建一个空文件）。此前保存的内容保留在 ${dir} 中的 ${name}.replaced-<时间>.bak。进行中的任务会等待你继续。`,
        ),
      };
    }
  }
}

/**
 * The data folder `dir` is on a network file system (`type`, mounted at `mountPoint`): what that
 * risks and what to do. SQLite's documentation says its file locking is unreliable there, and
 * that WAL mode needs every process on one computer; NextAI Agent still starts (it may be the only
 * place the person can keep it), but says so in its log, `nextai status` and `nextai doctor`.
 */
export function describeNetworkFileSystem(
  dir: string,
  type: string,
  mountPoint: string | undefined,
): { message: Localized; fix: Localized } {
  const where = mountPoint ? `${type}, mounted at ${mountPoint}` : type;
  const whereZh = mountPoint ? `${type}，挂载于 ${mountPoint}` : type;
  return {
    message: say(
      `The data folder ${dir} is on a network file system (${where}). SQLite's file locking is unreliable there: a lock the server loses, or a second computer using the same folder, can corrupt data.db or lose what was saved.`,
      `数据文件夹 ${dir} 位于网络文件系统上（${whereZh}）。SQLite 的文件锁在那里并不可靠：服务器丢失锁，或另一台电脑使用同一文件夹，都可能损坏 data.db 或丢失已保存的内容。`,
    ),
    fix: say(
      'Keep the data folder on a local disk: stop NextAI Agent (`nextai daemon stop`), move the folder, and set NEXTAI_HOME to its new place.',
      '请把数据文件夹放在本地磁盘上：先停止 NextAI Agent（`nextai daemon stop`），移动该文件夹，再把 NEXTAI_HOME 设为新位置。',
    ),
  };
}

/**
 * The database's health as clients are told it (`daemon.status`, the `storage.health` event);
 * `network` when the data folder is on a network file system (network-file-system.ts).
 */
export function storageHealthReport(
  failure: StorageFailure | undefined,
  file: string,
  network?: NetworkFileSystem,
): StorageHealthReport {
  const dir = path.dirname(file);
  const onNetwork = network ? { network_file_system: networkReport(dir, network) } : {};
  if (!failure) return { ok: true, data_dir: dir, ...onNetwork };
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
    ...onNetwork,
  };
}

function networkReport(
  dir: string,
  network: NetworkFileSystem,
): NonNullable<StorageHealthReport['network_file_system']> {
  const { message, fix } = describeNetworkFileSystem(dir, network.type, network.mountPoint);
  return {
    type: network.type,
    ...(network.mountPoint ? { mount_point: network.mountPoint } : {}),
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
