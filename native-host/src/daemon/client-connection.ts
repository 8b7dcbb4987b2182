import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';

import {
  AppError,
  MAX_SOCKET_FRAME_BYTES,
  createDaemonSidePeer,
  type ClientInfo,
  type DaemonSidePeer,
  type RequestId,
  type WireError,
} from '@nextai/shared';

import { BurstLog } from '../core/burst-log.js';
import type { Logger } from '../core/logger.js';
import { FramedStream } from '../transport/framed-stream.js';
import type { ProcessVerdict } from './identity/agent-process.js';
import { RoundRobin, type TakesTurns } from './round-robin.js';

/**
 * Requests one connection may have waiting for their turn or running at once. Past it, a request
 * is answered BUSY as it arrives: a client that floods the daemon gets refusals, not a queue that
 * grows without end, and the others keep their turns.
 */
export const MAX_PENDING_PER_CLIENT = 256;

/**
 * The same for a browser's bridge, which carries every panel, tab and browser tool of that browser
 * on its one connection (a panel following a 500-step run has hundreds of reads in flight).
 */
export const MAX_PENDING_PER_BROWSER = 4096;

export interface ClientConnectionOptions {
  /**
   * What the process on the other end was judged to be when it connected (the kernel names it;
   * judged at once, before it could exit and its pid be reused): what the person's authority is
   * checked against.
   */
  process?: Promise<ProcessVerdict>;
  /** Where this connection's requests take turns with the other connections' (the daemon's one ring). */
  turns?: RoundRobin;
  /** Requests waiting or running before more are refused (tests lower it). */
  maxPending?: number;
}

/** One client on the daemon socket: a browser's bridge, a CLI invocation, an MCP server. */
export class ClientConnection implements TakesTurns {
  readonly id = randomUUID();
  readonly connectedAt = new Date().toISOString();
  readonly peer: DaemonSidePeer;
  readonly process: Promise<ProcessVerdict>;
  /** Set by `daemon.hello`. */
  info: ClientInfo | undefined;
  /** Set by `bridge.register`: the extension origin the bridge verified. */
  origin: string | undefined;
  unsubscribeEvents: (() => void) | undefined;
  private readonly stream: FramedStream;
  private readonly closed = new AbortController();
  /** Requests and notifications read but not handled yet, oldest first: they wait for this connection's turn. */
  private readonly inbox: unknown[] = [];
  /** Requests handed to their handler and not answered yet. */
  private inFlight = 0;
  private readonly turns: RoundRobin;
  private maxPending: number;
  /** The one answer to a request over the limit (built once: a flood refuses thousands). */
  private busy: WireError;
  private readonly refusals: BurstLog;
  private corked = false;
  /** Reading waits while much is queued: what this client sends meanwhile stays in its socket. */
  private readingPaused = false;

  constructor(
    private readonly socket: Socket,
    log: Logger,
    onClose: (connection: ClientConnection) => void,
    options: ClientConnectionOptions = {},
  ) {
    this.process = options.process ?? Promise.resolve({ known: false, reason: 'the connection was not looked up' });
    this.turns = options.turns ?? new RoundRobin();
    this.maxPending = options.maxPending ?? MAX_PENDING_PER_CLIENT;
    this.busy = busyAnswer(this.maxPending);
    this.refusals = new BurstLog(
      () =>
        log.warn('a client sent more requests than the daemon holds for one connection; refusing the excess (BUSY)', {
          client: this.id,
          limit: this.maxPending,
        }),
      (count) => log.warn('refused requests over the limit of one connection', { client: this.id, refused: count }),
    );
    this.stream = new FramedStream({
      readable: socket,
      writable: socket,
      maxInboundBytes: MAX_SOCKET_FRAME_BYTES,
      maxOutboundBytes: MAX_SOCKET_FRAME_BYTES,
      onMessage: (value) => this.arrived(value),
      onFrameError: (error, fatal) => {
        log.warn('bad frame from client', { client: this.id, code: error.code, error: error.message, fatal });
        // The frame boundary is intact after a bad payload: answer it and go on.
        if (!fatal) this.sendError(null, error.toWire());
      },
      onInputEnd: () => {
        // What still waits for its turn is dropped: nobody is there to take the answers.
        this.inbox.length = 0;
        this.refusals.flush();
        // End our side after what is queued has been written (a last answer, the stop event);
        // destroy only if the client never closes its side.
        this.stream.close();
        setTimeout(() => socket.destroy(), 2000).unref();
        socket.once('close', () => socket.destroy());
        this.peer.close();
        this.closed.abort(new AppError('DISCONNECTED', 'The client disconnected.'));
        onClose(this);
      },
    });
    this.peer = createDaemonSidePeer({
      send: (message) => this.stream.send(message),
      onProtocolError: (error) =>
        log.warn('protocol error', { client: this.id, code: error.code, error: error.message }),
    });
  }

  /** Lets this connection have up to `limit` requests waiting or running (a browser's bridge). */
  allowPending(limit: number): void {
    this.maxPending = limit;
    this.busy = busyAnswer(limit);
  }

  /** Aborted when this client disconnects: its pending approvals close, its running calls stop. */
  get closedSignal(): AbortSignal {
    return this.closed.signal;
  }

  get label(): string {
    return this.info ? `${this.info.kind}:${this.info.name}` : `unidentified:${this.id.slice(0, 8)}`;
  }

  /** Requests read from this client and not answered yet, waiting or running. */
  get pending(): number {
    return this.inbox.length + this.inFlight;
  }

  /** Whether this is a browser's bridge (it said which extension it speaks for). */
  isBrowserBridge(): boolean {
    return this.origin !== undefined;
  }

  canRunBrowserTools(): boolean {
    return this.info?.capabilities.includes('browser_tools') ?? false;
  }

  close(): void {
    this.stream.close();
  }

  /** This connection's turn: the oldest message it sent goes to its handler. */
  takeTurn(): boolean {
    const value = this.inbox.shift();
    if (value !== undefined) this.dispatch(value);
    if (this.readingPaused && this.inbox.length <= this.maxPending / 4 && !this.closed.signal.aborted) {
      this.readingPaused = false;
      this.socket.resume();
    }
    return this.inbox.length > 0;
  }

  private arrived(value: unknown): void {
    // Answers to the daemon's own requests (a browser's `extension.surfaces`) are not work this
    // client asks for: they settle what the daemon waits on at once.
    if (isResponse(value)) {
      void this.peer.receive(value);
      return;
    }
    if (this.pending >= this.maxPending) {
      this.refuse(value);
      return;
    }
    this.inbox.push(value);
    this.turns.wake(this);
    // With this much waiting, reading more would only refuse it: the daemon reads on as the queue
    // goes down, at the pace of this client's turns, not of what it sends. Only the queue counts,
    // never the requests running: what they wait for (a browser's answers to the daemon's own
    // requests, its tool results) comes in on this same connection and must be read.
    if (!this.readingPaused && this.inbox.length >= this.maxPending / 2) {
      this.readingPaused = true;
      this.socket.pause();
    }
  }

  private dispatch(value: unknown): void {
    if (!isRequest(value)) {
      void this.peer.receive(value);
      return;
    }
    this.inFlight++;
    void this.peer.receive(value).finally(() => {
      this.inFlight--;
    });
  }

  /** Over the limit: a request is answered BUSY at once; a notification is dropped. Both are logged per burst. */
  private refuse(value: unknown): void {
    this.refusals.note();
    if (!isRequest(value)) return;
    // The refusals of one read go out in one write, not thousands of small ones.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.sendError(idOf(value), this.busy);
  }

  private sendError(id: RequestId | null, error: WireError): void {
    if (this.stream.isClosed) return;
    this.stream.send({ jsonrpc: '2.0', id, error });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequest(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && 'method' in value && 'id' in value;
}

function isResponse(value: unknown): boolean {
  return isRecord(value) && !('method' in value) && ('result' in value || 'error' in value);
}

/** The id to answer a refused request with: its own when it is a valid one. */
function idOf(request: Record<string, unknown>): RequestId | null {
  const { id } = request;
  if (typeof id === 'string' && id.length <= 200) return id;
  return typeof id === 'number' && Number.isInteger(id) ? id : null;
}

function busyAnswer(limit: number): WireError {
  return new AppError(
    'BUSY',
    `This connection already has ${limit} requests waiting or running, the most the daemon holds for one client; this one was refused. Send more as answers come back.`,
    { details: { limit } },
  ).toWire();
}
