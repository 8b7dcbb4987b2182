import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';

import { BurstLog } from '../core/burst-log.js';
import type { Logger } from '../core/logger.js';
import { encodeFrame } from '../transport/frame-codec.js';
import { ensurePrivateDirectory } from './instance-lock.js';

/** Refused connections left open for their client to read why, at most; past it they close at once. */
const MAX_LINGERING = 256;

/** How often the daemon looks whether its socket file is still the one it made. */
export const SOCKET_CHECK_MS = 2000;

export interface DaemonSocketOptions {
  /** The Unix socket's path, or the Windows pipe's name. */
  path: string;
  platform: Platform;
  log: Logger;
  /** How often the socket file is looked at; {@link SOCKET_CHECK_MS} when omitted. */
  checkEveryMs?: number;
}

/** Which file a path names: a socket file removed and made again by someone else is another one. */
interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * The daemon's listening socket, kept reachable. A Unix socket is a file anyone with the user's
 * rights can delete or replace; the daemon then still runs, but nobody can reach it — while the
 * instance lock keeps a new daemon from starting. So every few seconds the daemon looks whether
 * the file at its path is still the one it made, and when it is gone or another one, makes a new
 * socket there. Connections already open are not touched. (Windows pipes are no files: nothing to
 * watch there.)
 */
export class DaemonSocket {
  private server: net.Server;
  private identity: FileIdentity | undefined;
  /** Servers replaced by a new socket: they close once their last connection does. */
  private readonly retired: Promise<void>[] = [];
  private handler: ((socket: net.Socket) => void) | undefined;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private closing = false;
  private renewing = false;
  /** Attempts in a row that could not make a new socket (said once, not every 2 s). */
  private failedRenewals = 0;
  /** Another process listens at the path: said once. */
  private sawOtherListener = false;
  private readonly serverErrors: BurstLog;
  private readonly refusals: BurstLog;
  private lastServerError = '';
  private refusal: { limit: number; frame: Buffer } | undefined;
  /** Refused connections still open, waiting for their client to close them. */
  private lingering = 0;

  private constructor(
    private readonly options: DaemonSocketOptions,
    server: net.Server,
  ) {
    const { log } = options;
    // After listen, server errors are trouble accepting one connection (EMFILE when out of file
    // handles): said once per burst; the daemon keeps serving the clients it has.
    this.serverErrors = new BurstLog(
      () => log.error('socket server error; connections are being dropped', { error: this.lastServerError }),
      (count) => log.error('socket server errors', { count, last: this.lastServerError }),
    );
    this.refusals = new BurstLog(
      () => log.warn('too many clients are connected; refusing new connections (BUSY) until some close'),
      (count) => log.warn('refused connections over the limit', { refused: count }),
    );
    this.server = server;
    this.attach(server);
    this.identity = options.platform === 'windows' ? undefined : statOf(options.path);
    if (options.platform !== 'windows') {
      this.timer = setInterval(() => this.check(), options.checkEveryMs ?? SOCKET_CHECK_MS);
      this.timer.unref();
    }
  }

  /** Listens on `options.path`; the caller holds the instance lock. */
  static async open(options: DaemonSocketOptions): Promise<DaemonSocket> {
    return new DaemonSocket(options, await listen(options.path, options.platform));
  }

  /** Hands every new connection to `handler`. */
  serve(handler: (socket: net.Socket) => void): void {
    this.handler = handler;
  }

  /**
   * Refuses a connection over the limit: one error frame saying why, then the connection ends.
   * What the client sends meanwhile is read and dropped, so that its first write (its hello) does
   * not fail before it has read why; the connection is let go once the client closes it, within a
   * second — at once when many refused ones are still open, so that a flood of connections cannot
   * use up the daemon's file handles.
   */
  refuse(socket: net.Socket, limit: number): void {
    this.refusals.note();
    socket.on('error', () => undefined);
    // Built once: a flood of connections is refused thousands of times.
    if (this.refusal?.limit !== limit) {
      const error = new AppError(
        'BUSY',
        `The daemon already serves ${limit} connections, its limit; this one was refused. Close clients you do not need, then try again.`,
        { details: { limit } },
      );
      this.refusal = { limit, frame: encodeFrame({ jsonrpc: '2.0', id: null, error: error.toWire() }, 64 * 1024) };
    }
    if (this.lingering >= MAX_LINGERING) {
      socket.end(this.refusal.frame, () => socket.destroy());
      return;
    }
    this.lingering++;
    socket.once('close', () => this.lingering--);
    socket.resume();
    socket.end(this.refusal.frame);
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  /** Stops listening; resolves once every connection of every socket it made has closed. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    this.refusals.flush();
    this.serverErrors.flush();
    const mine = this.isOurs();
    const closed = closeServer(this.server);
    // Closing a Unix socket's server removes its file; make sure, but never remove someone else's.
    if (mine) fs.rmSync(this.options.path, { force: true });
    await Promise.all([closed, ...this.retired]);
  }

  /** Whether the file at the path is the socket this daemon made last. */
  private isOurs(): boolean {
    if (this.options.platform === 'windows' || this.identity === undefined) return false;
    try {
      return sameFile(statOf(this.options.path), this.identity);
    } catch {
      return false;
    }
  }

  private attach(server: net.Server): void {
    server.on('connection', (socket) => {
      if (this.handler) this.handler(socket);
      else socket.destroy();
    });
    server.on('error', (error) => {
      this.lastServerError = error.message;
      this.serverErrors.note();
    });
  }

  private check(): void {
    if (this.closing || this.renewing) return;
    let current: fs.Stats | undefined;
    try {
      current = statOf(this.options.path);
    } catch (error) {
      this.options.log.warn('could not look at the daemon socket file', { error: (error as Error).message });
      return;
    }
    if (current && this.identity && sameFile(current, this.identity)) return;
    this.renewing = true;
    void this.renew(current).finally(() => {
      this.renewing = false;
    });
  }

  /** Makes a new socket at the path, for new clients; connections already open go on. */
  private async renew(current: fs.Stats | undefined): Promise<void> {
    const { log, path: socketPath, platform } = this.options;
    // A socket someone listens on is not taken over: two processes taking it from each other
    // every few seconds would serve nobody.
    if (current?.isSocket() && (await someoneListens(socketPath))) {
      if (!this.sawOtherListener) {
        this.sawOtherListener = true;
        log.error(
          'another process listens at the daemon socket path; this daemon leaves it alone and cannot be reached',
          {
            socket: socketPath,
          },
        );
      }
      return;
    }
    if (this.failedRenewals === 0) {
      log.warn(
        current
          ? 'the daemon socket file was replaced by another file; making a new one'
          : 'the daemon socket file was removed; making a new one',
        { socket: socketPath },
      );
    }
    try {
      // Closing a Unix socket's server unlinks its path: the old one goes first, before the new
      // file is there. Its connections stay open.
      this.retired.push(closeServer(this.server));
      const server = await listen(socketPath, platform);
      if (this.closing) {
        await closeServer(server);
        return;
      }
      this.server = server;
      this.attach(server);
      this.identity = statOf(socketPath);
      log.info('the daemon socket is back', { socket: socketPath, attempts: this.failedRenewals + 1 });
      this.failedRenewals = 0;
      this.sawOtherListener = false;
    } catch (error) {
      if (this.failedRenewals === 0) {
        log.error('could not make a new daemon socket; trying again until it can', {
          socket: socketPath,
          error: (error as Error).message,
          every_ms: this.options.checkEveryMs ?? SOCKET_CHECK_MS,
        });
      }
      this.failedRenewals++;
      this.identity = undefined;
    }
  }
}

/**
 * Listens on the daemon socket. The caller holds the instance lock, so a socket file that is
 * already there belongs to a daemon that died (or is not a daemon's): it is removed, not feared.
 */
async function listen(socketPath: string, platform: Platform): Promise<net.Server> {
  if (platform !== 'windows') {
    // sockaddr_un holds 104 (macOS) to 108 (Linux) bytes including the terminating NUL.
    if (Buffer.byteLength(socketPath) > 103) {
      throw new AppError(
        'STORAGE_ERROR',
        `The socket path ${socketPath} is too long for a Unix socket (over 103 bytes). Set NEXTAI_HOME to a shorter directory.`,
      );
    }
    // The folder may have gone with the file.
    ensurePrivateDirectory(path.dirname(socketPath));
    fs.rmSync(socketPath, { force: true });
  }
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (platform !== 'windows') fs.chmodSync(socketPath, 0o600);
  return server;
}

/** Resolves once the server has stopped listening and its last connection has closed. */
function closeServer(server: net.Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The file at `file`, undefined when there is none. */
function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether a process accepts connections on the socket at `socketPath` (one that does not answer in 1 s counts). */
function someoneListens(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const done = (listening: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(listening);
    };
    const timer = setTimeout(() => done(true), 1000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function sameFile(a: FileIdentity | undefined, b: FileIdentity): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}
