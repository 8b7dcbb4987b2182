import type net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  AppError,
  CANCEL_METHOD,
  MAX_BROWSER_TO_HOST_BYTES,
  MAX_HOST_TO_BROWSER_BYTES,
  MAX_SOCKET_FRAME_BYTES,
  classifyMessage,
  errorResponse,
  requestIdOf,
  splitIntoChunks,
  toAppError,
  type ClassifiedMessage,
  type JsonRpcMessage,
  type RequestId,
} from '@nextai/shared/wire';

import { unavailableReason } from '../client/daemon-launcher.js';
import type { Logger } from '../core/logger.js';
import { FramedStream } from '../transport/framed-stream.js';
import { checkCaller } from './caller-origin.js';

export interface BridgeOptions {
  stdin: Readable;
  stdout: Writable;
  /** The host's command-line arguments, as the browser passed them. */
  callerArgs: readonly string[];
  /** Connects to the daemon, starting it when needed. */
  connectDaemon: () => Promise<net.Socket>;
  log: Logger;
  /** Waits between reconnection attempts after the daemon went away. */
  reconnectDelaysMs?: readonly number[];
  /** Messages from the browser held while the daemon is (re)connecting. */
  maxQueued?: number;
  /**
   * Whether a daemon runs for this data directory (it holds the instance lock), asked when the
   * connection to it is lost: the browser is told the daemon stopped only when it did.
   */
  daemonRunning?: () => boolean;
}

/**
 * Bytes sent to the daemon and not yet taken by it past which the bridge stops reading from the
 * browser until they are: a browser that sends faster than the daemon reads waits (its pipe fills)
 * instead of the bridge buffering without bound — past 256 MiB it would drop the connection.
 */
const DAEMON_BACKLOG_BYTES = 4 * 1024 * 1024;

type DaemonState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/**
 * `nextai host`: the thin bridge the browser launches. Native-messaging frames on stdin/stdout,
 * socket frames to the daemon. It checks who called it, validates every message's JSON-RPC
 * envelope in both directions, never writes a frame over 1 MiB to the browser (bigger messages go
 * as `bridge.chunk` pieces), and survives a daemon restart: requests in flight get an error, the
 * daemon is started again, and the browser is told through `bridge.state`.
 */
export class Bridge {
  /** Resolves with the process exit code when the bridge is done. */
  readonly done: Promise<number>;
  private resolveDone!: (code: number) => void;
  private readonly log: Logger;
  private browser: FramedStream | undefined;
  private daemon: FramedStream | undefined;
  private daemonSocket: net.Socket | undefined;
  private state: DaemonState = 'connecting';
  private origin = '';
  private readonly queue: JsonRpcMessage[] = [];
  /** Ids of browser requests the daemon has not answered yet. */
  private readonly pendingBrowserRequests = new Map<string, RequestId>();
  private chunkCounter = 0;
  /** Set when the browser's input ended: exit once the requests it sent are answered. */
  private exitWhenIdle: number | undefined;
  /** Reading from the browser waits for the daemon to take what was sent. */
  private browserPaused = false;
  /** The daemon refused this connection (too many clients): what it said. */
  private refusal: AppError | undefined;
  /** Connections the daemon refused in a row: the next attempt waits longer. */
  private refusedInARow = 0;

  constructor(private readonly options: BridgeOptions) {
    this.log = options.log;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  start(): void {
    const caller = checkCaller(this.options.callerArgs);
    this.browser = new FramedStream({
      readable: this.options.stdin,
      writable: this.options.stdout,
      maxInboundBytes: MAX_BROWSER_TO_HOST_BYTES,
      maxOutboundBytes: MAX_HOST_TO_BROWSER_BYTES,
      onMessage: (value) => this.fromBrowser(value),
      onFrameError: (error, fatal) => {
        this.log.warn('bad frame from the browser', { code: error.code, error: error.message, fatal });
        this.sendToBrowser(errorResponse(null, error.toWire()));
      },
      onInputEnd: (reason) => {
        this.log.info('browser input ended', { reason: reason?.message });
        this.shutdownWhenAnswered(reason ? 1 : 0);
      },
    });
    if (!caller.allowed) {
      this.log.warn('refused caller', { args: this.options.callerArgs.join(' '), reason: caller.reason });
      this.sendToBrowser(errorResponse(null, new AppError('ORIGIN_NOT_ALLOWED', caller.reason).toWire()));
      this.shutdown(1);
      return;
    }
    this.origin = caller.origin;
    this.log.info('bridge started', { origin: caller.origin });
    void this.connect(false);
  }

  private async connect(isReconnect: boolean, firstDelayMs?: number): Promise<void> {
    const retries = isReconnect ? (this.options.reconnectDelaysMs ?? [100, 250, 500, 1000, 2000]) : [0];
    const delays = firstDelayMs === undefined ? retries : [firstDelayMs, ...retries];
    let lastError: AppError | undefined;
    for (const delay of delays) {
      if (delay > 0) await sleep(delay);
      if (this.isClosed()) return;
      try {
        const socket = await this.options.connectDaemon();
        if (this.isClosed()) {
          socket.destroy();
          return;
        }
        this.attachDaemon(socket);
        if (isReconnect) this.notifyBrowser('connected');
        this.flushQueue();
        return;
      } catch (error) {
        lastError = toAppError(error, 'DAEMON_UNAVAILABLE');
        this.log.warn('could not reach the daemon', { error: lastError.message });
        // Stopped on purpose: retrying would only be refused again (or, worse, undo the stop).
        if (unavailableReason(lastError) === 'stopped') break;
      }
    }
    const message = lastError?.message ?? 'The daemon could not be reached.';
    this.failQueued(message);
    this.notifyBrowser('unavailable', message);
    this.shutdown(1);
  }

  private attachDaemon(socket: net.Socket): void {
    this.daemonSocket = socket;
    this.daemon = new FramedStream({
      readable: socket,
      writable: socket,
      maxInboundBytes: MAX_SOCKET_FRAME_BYTES,
      maxOutboundBytes: MAX_SOCKET_FRAME_BYTES,
      onMessage: (value) => this.fromDaemon(value),
      onFrameError: (error) => this.log.error('bad frame from the daemon', { error: error.message }),
      onInputEnd: (reason) => this.onDaemonLost(socket, reason),
    });
    this.refusal = undefined;
    this.state = 'connected';
    this.daemon.send({
      jsonrpc: '2.0',
      method: 'bridge.register',
      params: { origin: this.origin, host_pid: process.pid },
    });
  }

  /**
   * The connection to the daemon ended. Requests in flight get an error that says what happened —
   * the daemon refused the connection, or closed it while it still runs, or stopped — and the
   * bridge connects again (starting a daemon if none runs).
   */
  private onDaemonLost(socket: net.Socket, reason: AppError | undefined): void {
    socket.destroy();
    if (this.state === 'closed' || socket !== this.daemonSocket) return;
    this.daemon = undefined;
    this.daemonSocket = undefined;
    this.state = 'reconnecting';
    // What the browser sends meanwhile is queued (or refused past the queue's size).
    this.resumeBrowser();
    const lost = this.describeLoss(reason);
    this.log.warn('lost the daemon connection; reconnecting', { why: lost.state, reason: reason?.message });
    for (const id of this.pendingBrowserRequests.values()) this.sendToBrowser(errorResponse(id, lost.error.toWire()));
    this.pendingBrowserRequests.clear();
    if (this.exitWhenIdle !== undefined && this.isIdle()) {
      this.shutdown(this.exitWhenIdle);
      return;
    }
    this.notifyBrowser('reconnecting', lost.state);
    if (this.refusal) {
      // Refused again and again: the daemon is full; wait longer each time (up to 5 s).
      this.refusedInARow++;
      void this.connect(true, Math.min(100 * 2 ** this.refusedInARow, 5000));
      return;
    }
    void this.connect(true);
  }

  /** What to tell the browser about a lost daemon connection: the error for its requests, and the state. */
  private describeLoss(reason: AppError | undefined): { error: AppError; state: string } {
    if (this.refusal) {
      return {
        error: this.refusal,
        state: `The daemon refused the connection: ${this.refusal.message} Trying again.`,
      };
    }
    const running = this.options.daemonRunning?.();
    const why = reason ? ` (${reason.message})` : '';
    if (running === false) {
      return {
        error: new AppError(
          'DAEMON_UNAVAILABLE',
          'The daemon stopped before answering; it is being started again. Retry the request.',
        ),
        state: 'The daemon stopped; starting it again.',
      };
    }
    const still = running === true ? ' (the daemon still runs)' : '';
    return {
      error: new AppError(
        'DAEMON_UNAVAILABLE',
        `The connection to the daemon closed before it answered${still}${why}; reconnecting. Retry the request.`,
      ),
      state: `Lost the connection to the daemon${still}${why}; reconnecting.`,
    };
  }

  private fromBrowser(value: unknown): void {
    let classified: ClassifiedMessage;
    try {
      classified = classifyMessage(value);
    } catch (error) {
      this.sendToBrowser(errorResponse(requestIdOf(error), toAppError(error, 'INVALID_REQUEST').toWire()));
      return;
    }
    const message = classified.message;
    if (this.state === 'connected' && this.daemon) {
      this.forwardToDaemon(classified);
      return;
    }
    if (this.queue.length >= (this.options.maxQueued ?? 1000)) {
      if (classified.kind === 'request') {
        this.sendToBrowser(
          errorResponse(
            classified.message.id,
            new AppError('DAEMON_UNAVAILABLE', 'Too many requests while the daemon is starting.').toWire(),
          ),
        );
      }
      return;
    }
    this.queue.push(message);
  }

  private forwardToDaemon(classified: ClassifiedMessage): void {
    if (classified.kind === 'request')
      this.pendingBrowserRequests.set(JSON.stringify(classified.message.id), classified.message.id);
    // A request the browser withdrew gets no answer: it is not waited for.
    if (classified.kind === 'notification' && classified.message.method === CANCEL_METHOD) {
      this.pendingBrowserRequests.delete(JSON.stringify(classified.message.params?.id));
    }
    try {
      this.daemon?.send(classified.message);
    } catch (error) {
      if (classified.kind === 'request') {
        this.pendingBrowserRequests.delete(JSON.stringify(classified.message.id));
        this.sendToBrowser(errorResponse(classified.message.id, toAppError(error).toWire()));
      }
    }
    this.pauseBrowserWhileBacklogged();
  }

  /** Stops reading from the browser while the daemon has much it has not taken yet; resumes when it has. */
  private pauseBrowserWhileBacklogged(): void {
    const socket = this.daemonSocket;
    if (!socket || this.browserPaused || socket.writableLength <= DAEMON_BACKLOG_BYTES) return;
    this.browserPaused = true;
    this.options.stdin.pause();
    socket.once('drain', () => {
      if (socket === this.daemonSocket) this.resumeBrowser();
    });
  }

  private resumeBrowser(): void {
    if (!this.browserPaused) return;
    this.browserPaused = false;
    if (this.state !== 'closed') this.options.stdin.resume();
  }

  private flushQueue(): void {
    const queued = this.queue.splice(0);
    for (const message of queued) this.forwardToDaemon(classifyMessage(message));
    // Queued notifications need no answer: with the browser gone, that may leave nothing to wait for.
    if (this.exitWhenIdle !== undefined && this.isIdle()) this.shutdown(this.exitWhenIdle);
  }

  private failQueued(reason: string): void {
    for (const message of this.queue.splice(0)) {
      if ('method' in message && 'id' in message) {
        this.sendToBrowser(errorResponse(message.id, new AppError('DAEMON_UNAVAILABLE', reason).toWire()));
      }
    }
  }

  private fromDaemon(value: unknown): void {
    let classified: ClassifiedMessage;
    try {
      classified = classifyMessage(value);
    } catch (error) {
      this.log.error('the daemon sent an invalid message; dropped', { error: (error as Error).message });
      return;
    }
    if (classified.kind === 'error' && classified.message.id === null) {
      const error = AppError.fromWire(classified.message.error);
      if (error.code === 'BUSY') {
        // The daemon has too many clients and closes this connection: said to the browser as the
        // connection is lost, for the requests it took with it.
        this.refusal = error;
        this.log.warn('the daemon refused the connection', { error: error.message });
        return;
      }
    } else this.refusedInARow = 0;
    if (classified.kind === 'success' || classified.kind === 'error') {
      const id = classified.message.id;
      if (id !== null) this.pendingBrowserRequests.delete(JSON.stringify(id));
    }
    this.sendToBrowser(classified.message);
    if (this.exitWhenIdle !== undefined && this.isIdle()) this.shutdown(this.exitWhenIdle);
  }

  private isIdle(): boolean {
    return this.pendingBrowserRequests.size === 0 && this.queue.length === 0;
  }

  /**
   * The browser closed our stdin. One-shot callers (sendNativeMessage) may do so right after
   * their request, so answer what is pending first — but never wait forever.
   */
  private shutdownWhenAnswered(code: number): void {
    if (this.isIdle() || this.state === 'closed') {
      this.shutdown(code);
      return;
    }
    this.exitWhenIdle = code;
    setTimeout(() => this.shutdown(code), 30_000).unref();
  }

  /**
   * Writes one message to the browser, splitting it into `bridge.chunk` notifications when it is
   * over the 1 MiB native-messaging limit. A frame over the limit is never written.
   */
  private sendToBrowser(message: JsonRpcMessage): void {
    const browser = this.browser;
    if (!browser || browser.isClosed) return;
    const serialized = JSON.stringify(message);
    try {
      if (Buffer.byteLength(serialized, 'utf8') <= MAX_HOST_TO_BROWSER_BYTES) {
        browser.sendSerialized(serialized);
        return;
      }
      const messageId = `${process.pid}-${++this.chunkCounter}`;
      const chunks = splitIntoChunks(serialized, messageId);
      this.log.debug('chunking a large message for the browser', { bytes: serialized.length, chunks: chunks.length });
      for (const chunk of chunks) browser.send({ jsonrpc: '2.0', method: 'bridge.chunk', params: chunk });
    } catch (error) {
      this.log.error('could not write to the browser', { error: (error as Error).message });
    }
  }

  private notifyBrowser(daemon: 'connected' | 'reconnecting' | 'unavailable', message?: string): void {
    this.sendToBrowser({
      jsonrpc: '2.0',
      method: 'bridge.state',
      params: message === undefined ? { daemon } : { daemon, message },
    });
  }

  // A method, not an inline comparison: the state changes while `connect` awaits, which
  // TypeScript's narrowing cannot see.
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private shutdown(code: number): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.daemon?.close();
    this.daemonSocket?.destroy();
    this.browser?.close();
    this.options.stdin.destroy();
    this.resolveDone(code);
  }
}
