import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

/** Another process holding the write lock of an SQLite database. */
export interface HeldLock {
  /** The process holding it. */
  readonly child: ChildProcess;
  /** Commits and lets go; resolves once that process has ended. */
  release(): Promise<void>;
}

// Runs in the child: better-sqlite3 from this checkout, the database file, how long to hold (0: until told).
const HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
let done = false;
const release = () => {
  if (done) return;
  done = true;
  db.exec('COMMIT');
  db.close();
  process.exit(0);
};
process.stdin.on('data', release);
process.stdin.on('end', release);
const forMs = Number(process.argv[3]);
if (forMs > 0) setTimeout(release, forMs);
`;

/**
 * Opens `file` in another process and holds its write lock (BEGIN EXCLUSIVE; in WAL mode readers
 * still read) — what another program, a backup tool or a second daemon on the same file does —
 * for `forMs` (the child lets go by itself, even while this process is blocked in SQLite's busy
 * wait), or until `release()`. Resolves once the lock is held.
 */
export async function holdWriteLock(file: string, options: { forMs?: number } = {}): Promise<HeldLock> {
  const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const child = spawn(process.execPath, ['-e', HOLDER, betterSqlite, file, String(options.forMs ?? 0)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // It may have let go and ended by itself (forMs) by the time it is told to.
  child.stdin?.on('error', () => undefined);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) =>
      reject(new Error(`the lock holder exited (${String(code)}) before locking: ${stderr}`)),
    );
  });
  return {
    child,
    release: async () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin?.end('release\n');
      await exited;
    },
  };
}
