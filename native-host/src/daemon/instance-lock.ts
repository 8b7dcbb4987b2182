import fs from 'node:fs';

import Database from 'better-sqlite3';

import { AppError } from '@nextai/shared';

import { readPid } from '../client/daemon-lock.js';
import type { DataPaths } from '../core/paths.js';

/**
 * Holds the "one daemon per data directory" lock for the life of the process.
 *
 * The lock is an exclusive SQLite lock on `run/daemon.lock` — underneath, an OS file lock
 * (fcntl on POSIX, LockFileEx on Windows) that the kernel releases when the process dies, even
 * by SIGKILL. A pid file alone cannot do that: after a crash it goes stale and two daemons
 * starting at once can both decide it is stale. The pid file here is only informational.
 */
export class InstanceLock {
  private constructor(
    private readonly database: Database.Database,
    private readonly pidFile: string,
  ) {}

  static acquire(paths: DataPaths): InstanceLock {
    ensurePrivateDirectory(paths.runDir);
    let database: Database.Database | undefined;
    try {
      // A moment's wait, not none: `nextai status` and the bridge look at the lock from outside
      // (client/daemon-lock.ts), holding it shared for a moment; that is not another daemon.
      // Another daemon holds it for good, and this one still gives up after the wait.
      database = new Database(paths.lockFile, { timeout: 250 });
      fs.chmodSync(paths.lockFile, 0o600);
      // No journal file next to the lock: nothing in it needs crash safety.
      database.pragma('journal_mode = MEMORY');
      database.pragma('locking_mode = EXCLUSIVE');
      // The first write under EXCLUSIVE locking mode takes the exclusive lock and keeps it.
      database.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, started_at TEXT NOT NULL)');
      database.exec('DELETE FROM owner');
      database.prepare('INSERT INTO owner (pid, started_at) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    } catch (error) {
      // A service instance waiting to take over tries again and again: no file handle may leak.
      database?.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') {
        const pid = readPid(paths.pidFile);
        const who = pid === undefined ? 'Another daemon' : `Another daemon (pid ${pid})`;
        throw new AppError(
          'DAEMON_ALREADY_RUNNING',
          `${who} is already running for ${paths.dataDir}. Use it (\`nextai status\`), stop it (\`nextai daemon stop\`), or set NEXTAI_HOME to use another data directory.`,
          { details: { pid, data_dir: paths.dataDir } },
        );
      }
      throw new AppError(
        'STORAGE_ERROR',
        `Could not take the daemon lock ${paths.lockFile}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    fs.writeFileSync(paths.pidFile, `${process.pid}\n`, { mode: 0o600 });
    return new InstanceLock(database, paths.pidFile);
  }

  release(): void {
    try {
      if (readPid(this.pidFile) === process.pid) fs.rmSync(this.pidFile, { force: true });
    } finally {
      this.database.close();
    }
  }
}

/** Creates the directory if needed and makes sure only its owner can enter it. */
export function ensurePrivateDirectory(directory: string): void {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask and does not touch an existing directory.
  fs.chmodSync(directory, 0o700);
}
