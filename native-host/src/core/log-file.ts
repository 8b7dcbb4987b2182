import fs from 'node:fs';
import path from 'node:path';

import SonicBoom from 'sonic-boom';

/**
 * The files behind the logger: appended through SonicBoom (pino's asynchronous destination), so
 * a log line costs the caller a string copy, not a system call; rotated by size in this thread;
 * flushed synchronously when the process exits, even on a crash.
 *
 * Not rotating-file-stream (or pino-roll): an ordinary Writable cannot be flushed synchronously
 * from an 'exit' listener, so the lines just before a crash would be lost; and pino's transports
 * load their modules by name in a worker thread, which the bundled CLI cannot do.
 */

export interface RotationOptions {
  /** A file that would grow past this many bytes is renamed `<file>.1` and a new one started. */
  maxBytes: number;
  /** Rotated files kept: `<file>.1` (the newest) … `<file>.<keep>`; older ones are deleted. */
  keep: number;
}

export const DEFAULT_ROTATION: RotationOptions = { maxBytes: 10 * 1024 * 1024, keep: 5 };

/**
 * What one stream may hold while its file takes nothing (a full disk); lines past it are dropped,
 * so a daemon whose disk is full does not grow without bound.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** How long a log file that could not be opened is left alone before the next try. */
const REOPEN_AFTER_MS = 30_000;

export interface LogFileEvents {
  /** Writing to the file started failing (called once per episode). */
  onFailure?(error: Error): void;
  /** It works again; `dropped` lines were lost meanwhile. */
  onRecovery?(dropped: number): void;
  /** The full file could not be renamed (reported once): it goes on growing, and rotation is tried again later. */
  onRotationFailure?(error: Error): void;
}

/**
 * One log file, rotated by size. Several processes may append to the same file (every browser
 * connection starts a `nextai host`): each checks the file on disk before rotating, and one that
 * finds the file already rotated by another simply continues in the new one.
 *
 * Never throws: a file that cannot be opened or written (a full disk, a read-only directory)
 * makes {@link failing} true, and the caller writes the line elsewhere.
 */
export class LogFile {
  private stream: SonicBoom | undefined;
  /** The file the stream writes to, to notice that the path now names another (rotated by another process). */
  private identity: { dev: bigint; ino: bigint } | undefined;
  /** Only regular files are measured and rotated (not /dev/null, a FIFO, a terminal). */
  private regular = false;
  /** Bytes in the file, as far as this process knows (its own writes plus what it found at the last look). */
  private size = 0;
  /** When size passes this, the file is looked at on disk (and rotated if it is full). */
  private nextCheckAt = 0;
  private reopenAt = 0;
  private failure: Error | undefined;
  private dropped = 0;
  private rotationFailureReported = false;
  /** Streams replaced by a rotation, still writing their last lines to the rotated file. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    readonly file: string,
    private readonly rotation: RotationOptions = DEFAULT_ROTATION,
    private readonly events: LogFileEvents = {},
  ) {
    if (!(rotation.maxBytes > 0) || !(rotation.keep >= 1)) {
      throw new RangeError('log rotation needs maxBytes > 0 and keep >= 1');
    }
    this.open();
  }

  /** True while lines cannot be written to the file (they may still be written later, or dropped). */
  get failing(): boolean {
    return this.failure !== undefined;
  }

  /** Appends a line (with its newline). Never throws. */
  write(line: string): void {
    if (!this.stream && Date.now() >= this.reopenAt) this.open();
    const bytes = Buffer.byteLength(line);
    if (this.stream && this.regular && this.size + bytes > this.nextCheckAt) this.check(bytes);
    // Looked up after the check: a rotation replaces the stream.
    const stream = this.stream;
    if (!stream) {
      this.dropped += 1;
      return;
    }
    this.size += bytes;
    try {
      stream.write(line);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Writes out what is buffered, blocking. Never throws. */
  flushSync(): void {
    if (this.stream) flushQuietly(this.stream);
  }

  /** Resolves once what was written so far is in the file (or could not be written). */
  async flush(): Promise<void> {
    const stream = this.stream;
    if (stream) {
      await new Promise<void>((resolve) => {
        try {
          stream.flush(() => resolve());
        } catch {
          resolve();
        }
      });
    }
    await Promise.all(this.retiring);
  }

  /** Writes out what is buffered and closes the file; later lines are dropped. */
  async close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    this.reopenAt = Number.POSITIVE_INFINITY;
    if (stream) this.retire(stream);
    await Promise.all(this.retiring);
  }

  /** Opens the file at its path (creating it and its directory), retiring the current stream. */
  private open(): void {
    const previous = this.stream;
    this.stream = undefined;
    if (previous) this.retire(previous);
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const fd = fs.openSync(this.file, 'a', 0o600);
      let stat: fs.BigIntStats;
      try {
        stat = fs.fstatSync(fd, { bigint: true });
      } catch (error) {
        fs.closeSync(fd);
        throw error;
      }
      this.identity = { dev: stat.dev, ino: stat.ino };
      this.regular = stat.isFile();
      this.size = Number(stat.size);
      this.nextCheckAt = this.checkpointAfter(this.size);
      this.stream = this.attach(fd);
    } catch (error) {
      this.reopenAt = Date.now() + REOPEN_AFTER_MS;
      this.fail(error);
    }
  }

  private attach(fd: number): SonicBoom {
    const stream = new SonicBoom({
      fd,
      sync: false,
      maxLength: MAX_BUFFERED_BYTES,
      retryEAGAIN: retryUnlessExiting,
    });
    stream.on('error', (error: Error) => {
      if (stream === this.stream) this.fail(error);
    });
    stream.on('drop', () => {
      if (stream === this.stream) this.dropped += 1;
    });
    // Opened again while failing: the first line that reaches the file ends the episode.
    if (this.failure) stream.once('write', () => this.recover());
    track(stream);
    return stream;
  }

  /**
   * Called when this process's count says the file passed a checkpoint: looks at the file on
   * disk, follows a rotation another process made, and rotates a full file. Checkpoints come every
   * eighth of the limit, so writes of other processes are noticed before the file grows far past it.
   */
  private check(bytes: number): void {
    const onDisk = statQuietly(this.file);
    if (!onDisk || onDisk.dev !== this.identity?.dev || onDisk.ino !== this.identity.ino) {
      // Rotated by another process, or removed by a person: go on in the file that is there now.
      this.open();
      if (!this.stream) return;
    } else {
      this.size = Math.max(this.size, Number(onDisk.size));
    }
    if (this.size > 0 && this.size + bytes > this.rotation.maxBytes && !this.rotate()) {
      // Not rotated: keep writing to this file and try again a step further on.
      this.nextCheckAt = this.size + this.step();
      return;
    }
    this.nextCheckAt = this.checkpointAfter(this.size);
  }

  private step(): number {
    return Math.max(1, Math.floor(this.rotation.maxBytes / 8));
  }

  private checkpointAfter(size: number): number {
    return Math.min(this.rotation.maxBytes, size + this.step());
  }

  /** `<file>.<keep-1>` → `<file>.<keep>` … `<file>` → `<file>.1`, then a new `<file>`; false if the renames failed. */
  private rotate(): boolean {
    const { file } = this;
    try {
      const onDisk = statQuietly(file);
      if (onDisk && onDisk.dev === this.identity?.dev && onDisk.ino === this.identity.ino) {
        for (let index = this.rotation.keep - 1; index >= 1; index -= 1) {
          renameIfPresent(`${file}.${index}`, `${file}.${index + 1}`);
        }
        fs.renameSync(file, `${file}.1`);
      }
      // Otherwise another process rotated it a moment ago: opening the path continues in its new file.
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        // A directory that does not allow renaming, or (on Windows) a file another program holds.
        if (!this.rotationFailureReported) {
          this.rotationFailureReported = true;
          this.events.onRotationFailure?.(error as Error);
        }
        return false;
      }
    }
    this.open();
    return true;
  }

  /** A stream replaced by a new one: its buffered lines still go to its file, then it closes. */
  private retire(stream: SonicBoom): void {
    stream.removeAllListeners('drop');
    const closed = new Promise<void>((resolve) => {
      stream.once('close', () => resolve());
      // A stream whose file fails is not waited for: it would keep retrying.
      stream.on('error', () => {
        resolve();
        stream.destroy();
      });
    });
    const done = closed.finally(() => this.retiring.delete(done));
    this.retiring.add(done);
    try {
      if (this.failing) stream.destroy();
      else stream.end();
    } catch {
      stream.destroy();
    }
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.dropped = 0;
    // SonicBoom keeps the chunk that failed and tries it again with the next write; the first
    // one that succeeds ends the episode.
    this.stream?.once('write', () => this.recover());
    this.events.onFailure?.(this.failure);
  }

  private recover(): void {
    if (!this.failure) return;
    this.failure = undefined;
    const dropped = this.dropped;
    this.dropped = 0;
    // Not from inside SonicBoom's write callback: the listener may log.
    process.nextTick(() => this.events.onRecovery?.(dropped));
  }
}

// --- stderr ----------------------------------------------------------------------------------

let stderrStream: SonicBoom | undefined;
let stderrClosed = false;

/**
 * Writes to stderr through a SonicBoom of its own (asynchronous; on Linux `process.stderr` to a
 * terminal or a pipe blocks). Never throws: a closed or failing stderr loses the line.
 */
export function writeStderr(text: string): void {
  if (stderrClosed) return;
  if (!stderrStream) {
    try {
      const stream = new SonicBoom({
        fd: 2,
        sync: false,
        maxLength: MAX_BUFFERED_BYTES,
        retryEAGAIN: retryUnlessExiting,
      });
      stream.on('error', (error: NodeJS.ErrnoException) => {
        // The reader went away (EPIPE), or there is no stderr at all: stop writing there.
        if (error.code === 'EPIPE' || error.code === 'EBADF') stderrClosed = true;
      });
      track(stream);
      stderrStream = stream;
    } catch {
      stderrClosed = true;
      return;
    }
  }
  try {
    stderrStream.write(text);
  } catch {
    stderrClosed = true;
  }
}

/**
 * Whether a person or a program reads stderr as it is written: a terminal, a pipe, a socket (the
 * systemd journal), not a regular file — a file is where a launcher put it (`nextai daemon
 * --detach` points it at logs/daemon.log itself, launchd at logs/service.log), and the daemon's
 * own log file is the rotated one.
 */
export function stderrIsWatched(): boolean {
  try {
    return !fs.fstatSync(2).isFile();
  } catch {
    return false;
  }
}

// --- flushing at exit ------------------------------------------------------------------------

const liveStreams = new Set<SonicBoom>();
let exiting = false;
let exitHookInstalled = false;

/**
 * Every open stream is flushed synchronously in the 'exit' event: after `process.exit()`, at the
 * natural end, and when an uncaught exception ends the process (Node emits 'exit' then too), so
 * the lines written just before a crash reach the file. Only SIGKILL and native crashes lose
 * what is still buffered (at most the lines of one write in progress).
 */
function track(stream: SonicBoom): void {
  liveStreams.add(stream);
  stream.once('close', () => liveStreams.delete(stream));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', flushAllSync);
}

/** Flushes every log stream synchronously. Never throws. */
export function flushAllSync(): void {
  exiting = true;
  try {
    for (const stream of liveStreams) flushQuietly(stream);
  } finally {
    exiting = false;
  }
}

/** While exiting, a stream that cannot take more (a full pipe) is given up rather than waited for. */
function retryUnlessExiting(): boolean {
  return !exiting;
}

function flushQuietly(stream: SonicBoom): void {
  if ((stream as { destroyed?: boolean }).destroyed) return;
  try {
    stream.flushSync();
  } catch {
    // A full disk or a closed pipe: what is buffered is lost, the process goes on (or ends) all the same.
  }
}

function statQuietly(file: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(file, { bigint: true });
  } catch {
    return undefined;
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
