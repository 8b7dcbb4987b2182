import fs from 'node:fs';
import path from 'node:path';

import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import type { RunError } from '../agent/run-store.js';
import type { Db } from '../storage/database.js';
import { databaseFile, type DatabaseReplacement } from '../storage/database-file.js';
import type { DaemonStorage } from './storage-alerts.js';

/**
 * What the daemon does when data.db is replaced or removed while it runs (storage/database-file.ts
 * notices it and stops every write into the old file).
 *
 * Why a restart. Whoever puts another file at data.db — most often a person restoring a backup —
 * means NextAI to use that file now; someone who deletes it means it to start afresh. The daemon
 * cannot switch files under its running parts (runs in progress, approvals waiting, the event log's
 * numbering all belong to the old file), and going on with the old file would lose every later
 * write. So it keeps what the old file held, stops as for a service manager's SIGTERM (tool calls
 * already running may finish; their results have nowhere to go, but the world is not left with
 * half an action), and exits with EXIT.DATABASE_REPLACED: the service manager starts it again, as
 * the browser's bridge and the next `nextai` command do when none runs — on the file now there.
 *
 * Nothing lost: before it stops, a copy of the old database as the daemon last had it (its WAL
 * included) is written next to data.db as data.db.replaced-<time>.bak. Nothing done twice: the
 * restored file's runs are back at an earlier checkpoint, and what they did after it may have
 * happened already, so the next daemon resumes none of them by itself (a marker in run/ tells it):
 * each waits, paused with the reason, for the person to look and resume it.
 */

/** What the next daemon learns from the one that found its database replaced. */
export interface ReplacedMarker {
  change: DatabaseReplacement['change'];
  detected_at: string;
  file: string;
  /** The copy of what the old database held, when it could be made. */
  kept_copy?: string;
}

export function replacedMarkerFile(paths: DataPaths): string {
  return path.join(paths.runDir, 'database-replaced.json');
}

/**
 * Follows the daemon's database file (every few seconds, and at every status and probe). Once it
 * is replaced or removed: a marker for the next daemon, a copy of the old database, the
 * notification sent, then `restart` (the daemon stops and exits so that it is started again).
 */
export function restartOnReplacedDatabase(options: {
  db: Db;
  paths: DataPaths;
  storage: DaemonStorage;
  log: Logger;
  restart: (reason: string) => void;
  intervalMs?: number;
}): void {
  const { paths, log } = options;
  const followed = databaseFile(options.db);
  if (!followed) return;
  followed.onReplaced((replacement) => {
    const marker: ReplacedMarker = {
      change: replacement.change,
      detected_at: replacement.detectedAt,
      file: paths.database,
    };
    const done = async () => {
      // First, in case this daemon is killed while it copies: the next one still holds the runs.
      writeMarker(paths, marker, log);
      try {
        marker.kept_copy = await followed.keepCopy();
        writeMarker(paths, marker, log);
        log.info('kept a copy of what the replaced database held', { copy: marker.kept_copy });
      } catch (error) {
        log.error('could not keep a copy of what the replaced database held', { error: (error as Error).message });
      }
      await options.storage.notified();
      options.restart(
        `${paths.database} was ${replacement.change} while the daemon ran; restarting on the file now there`,
      );
    };
    done().catch((error: unknown) =>
      log.error('could not restart after the database was replaced', { error: (error as Error).message }),
    );
  });
  followed.watch(options.intervalMs);
}

function writeMarker(paths: DataPaths, marker: ReplacedMarker, log: Logger): void {
  try {
    fs.mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(replacedMarkerFile(paths), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  } catch (error) {
    log.error('could not leave word of the replaced database for the next start', {
      error: (error as Error).message,
    });
  }
}

/**
 * The word a daemon left when it found its database replaced, taken (the file is removed): the
 * daemon starting now holds the runs it finds. Undefined when there is none.
 */
export function takeReplacedMarker(paths: DataPaths, log: Logger): ReplacedMarker | undefined {
  const file = replacedMarkerFile(paths);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn('could not read the word of a replaced database', { file, error: (error as Error).message });
    }
    return undefined;
  }
  fs.rmSync(file, { force: true });
  let marker: ReplacedMarker;
  try {
    const read = JSON.parse(text) as Partial<ReplacedMarker>;
    marker = {
      change: read.change === 'removed' ? 'removed' : 'replaced',
      detected_at: typeof read.detected_at === 'string' ? read.detected_at : 'an unknown time',
      file: typeof read.file === 'string' ? read.file : paths.database,
      ...(typeof read.kept_copy === 'string' ? { kept_copy: read.kept_copy } : {}),
    };
  } catch {
    // Unreadable, but there: the database was replaced all the same.
    marker = { change: 'replaced', detected_at: 'an unknown time', file: paths.database };
  }
  log.warn('started on the database file now there: the last daemon found it replaced while it ran', { ...marker });
  return marker;
}

/** Why a run of the restored database waits for the person (RunManager.holdUnfinished). */
export function heldAfterReplacement(marker: ReplacedMarker): RunError {
  const copy = marker.kept_copy ? ` What the replaced database held is kept in ${marker.kept_copy}.` : '';
  const copyZh = marker.kept_copy ? `被替换的数据库中的内容保存在 ${marker.kept_copy}。` : '';
  return {
    code: 'DATABASE_REPLACED',
    message:
      `The database was ${marker.change} while NextAI Agent was running (at ${marker.detected_at}; a backup restored?), ` +
      'so this run is back at an earlier step, and what it did after that may have happened already. ' +
      `Check, then resume it (Resume in the panel, or \`nextai runs resume\`).${copy}`,
    translations: {
      'zh-CN':
        `NextAI Agent 运行期间数据库被${marker.change === 'removed' ? '删除' : '替换'}了（${marker.detected_at}；恢复了备份？），` +
        '因此此任务回到了较早的步骤，之后它做过的操作可能已经发生。请先检查，再继续（在面板中点“继续”，或运行 `nextai runs resume`）。' +
        copyZh,
    },
  };
}
