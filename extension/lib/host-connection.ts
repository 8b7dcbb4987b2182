import type { z } from 'zod';

import {
  AppError,
  ChunkAssembler,
  type DAEMON_METHODS,
  type DAEMON_NOTIFICATIONS,
  NATIVE_HOST_NAME,
  PROTOCOL_VERSION,
  toAppError,
  createDaemonClientPeer,
  type ClientInfo,
  type DaemonClientPeer,
  type DaemonEvent,
  type MethodParams,
  type MethodResult,
  type OwnSurface,
  type RequestOptions,
  storageHealthSchema,
} from '@nextai/shared';

import { inspectBrowserCall, runBrowserTool } from './browser-tools.js';
import { INITIAL_STATE, type ConnectionState } from './connection-state.js';

/** The parts of a `runtime.Port` this module uses; tests pass a fake. */
export interface NativePort {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: (port: NativePort) => void): void };
}

export interface EventCursor {
  seq: number;
  logId?: string;
}

export interface HostConnectionOptions {
  connectNative: (hostName: string) => NativePort;
  /** Why a port closed: `runtime.lastError` in Chromium, `port.error` in Firefox. */
  disconnectReason: (port: NativePort) => string | undefined;
  client: Pick<ClientInfo, 'kind' | 'name' | 'version'>;
  /** Browser tools this build implements, announced in `daemon.hello`. */
  browserTools: string[];
  /** Where NextAI's pages are on screen now, for the daemon to keep the agent's input off them. */
  ownSurfaces?: () => Promise<OwnSurface[]>;
  loadCursor: () => Promise<EventCursor>;
  saveCursor: (cursor: EventCursor) => Promise<void>;
  /** Waits before successive reconnection attempts; the last one repeats. */
  backoffMs?: readonly number[];
  now?: () => number;
}

const DEFAULT_BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000, 30000];

/** Chromium's message when no manifest for the host name exists for this browser. */
const HOST_MISSING_PATTERNS = [/native messaging host not found/i, /no such native application/i];

/**
 * The background's one port to the native host. It keeps the port open, reconnects with growing
 * waits when it closes, introduces itself to the daemon (`daemon.hello`), and resumes the event
 * stream from the last `seq` it saw — persisted, so a service-worker restart resumes too.
 */
export class HostConnection {
  private state: ConnectionState = { ...INITIAL_STATE };
  private port: NativePort | undefined;
  private peer: DaemonClientPeer | undefined;
  private cursor: EventCursor = { seq: 0 };
  /** Highest seq received since the current `events.subscribe` was sent. */
  private seenSinceSubscribe = 0;
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly eventListeners = new Set<(event: DaemonEvent) => void>();
  private readonly assembler = new ChunkAssembler();

  constructor(private readonly options: HostConnectionOptions) {}

  get current(): ConnectionState {
    return this.state;
  }

  async start(): Promise<void> {
    this.cursor = await this.options.loadCursor();
    this.setState({ lastEventSeq: this.cursor.seq });
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.port?.disconnect();
    this.peer?.close(new AppError('DISCONNECTED', 'The extension closed the connection.'));
  }

  /** Drops any pending wait and tries to connect now (the panel's "Retry" button). */
  reconnectNow(): void {
    if (this.state.status === 'connected') return;
    clearTimeout(this.retryTimer);
    this.attempts = 0;
    this.teardownPort();
    this.connect();
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onEvent(listener: (event: DaemonEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /**
   * Sends a notification to the daemon when connected; returns false (and sends nothing) when not.
   * What is sent this way is state its sender sends again on connecting (onStateChange).
   */
  notify<M extends keyof typeof DAEMON_NOTIFICATIONS & string>(
    method: M,
    params: z.input<(typeof DAEMON_NOTIFICATIONS)[M]>,
  ): boolean {
    if (!this.peer || this.state.status !== 'connected') return false;
    this.peer.notify(method, params);
    return true;
  }

  request<M extends keyof typeof DAEMON_METHODS & string>(
    method: M,
    params: MethodParams<typeof DAEMON_METHODS, M>,
    options?: RequestOptions,
  ): Promise<MethodResult<typeof DAEMON_METHODS, M>> {
    if (!this.peer || this.state.status !== 'connected') {
      return Promise.reject(
        new AppError('DAEMON_UNAVAILABLE', this.state.error?.message ?? 'Not connected to the NextAI host yet.'),
      );
    }
    return this.peer.request(method, params, options);
  }

  private connect(): void {
    if (this.stopped) return;
    this.setState({ status: 'connecting', nextRetryAt: undefined });
    let port: NativePort;
    // What the host said before it went away explains more than the browser's "Native host has exited."
    let hostExplanation: { code: string; message: string } | undefined;
    try {
      port = this.options.connectNative(NATIVE_HOST_NAME);
    } catch (error) {
      this.onClosed({ code: 'DAEMON_UNAVAILABLE', message: toAppError(error).message });
      return;
    }
    const peer: DaemonClientPeer = createDaemonClientPeer({
      send: (message) => port.postMessage(message),
      handlers: {
        // The daemon withdraws a call (rpc.cancel) on the emergency stop or a run's stop: its signal.
        'extension.tool_call': ({ name, input, call_id, context }, { signal }) =>
          runBrowserTool(name, input, call_id, context, signal),
        'extension.inspect': ({ input, call_id, context, tool }) => inspectBrowserCall(input, call_id, context, tool),
        'extension.surfaces': async () => ({ surfaces: (await this.options.ownSurfaces?.()) ?? [] }),
      },
      notificationHandlers: {
        event: (event) => this.onDaemonEvent(event),
        'bridge.chunk': (chunk) => {
          const whole = this.assembler.add(chunk, this.now());
          if (whole !== undefined) peer.receive(JSON.parse(whole));
        },
        'bridge.state': ({ daemon, message }) => {
          if (daemon === 'connected') void this.handshake(peer);
          else if (daemon === 'reconnecting')
            this.setState({ status: 'connecting', daemonRestarting: true, storage: undefined });
          else {
            hostExplanation = { code: 'DAEMON_UNAVAILABLE', message: message ?? 'The daemon could not be started.' };
            this.setState({ error: describeError(hostExplanation.code, hostExplanation.message) });
          }
        },
      },
      onProtocolError: (error) => {
        // A message with no request to answer: the host refusing this origin, a bad frame.
        if (error.code === 'ORIGIN_NOT_ALLOWED') {
          hostExplanation = { code: error.code, message: error.message };
          this.setState({ error: describeError(error.code, error.message) });
        }
      },
    });
    this.port = port;
    this.peer = peer;
    port.onMessage.addListener((message) => peer.receive(message));
    port.onDisconnect.addListener((closed) => {
      if (closed !== this.port) return;
      const reason = this.options.disconnectReason(closed) ?? 'The native host closed the connection.';
      this.onClosed(hostExplanation ?? { code: 'DISCONNECTED', message: reason });
    });
    void this.handshake(peer);
  }

  private async handshake(peer: DaemonClientPeer): Promise<void> {
    try {
      const hello = await peer.request('daemon.hello', {
        client: { ...this.options.client, capabilities: ['browser_tools'], tools: this.options.browserTools },
        protocol_version: PROTOCOL_VERSION,
      });
      if (peer !== this.peer) return;
      this.attempts = 0;
      this.setState({ status: 'connected', daemon: hello.daemon, error: undefined, daemonRestarting: false });
      this.seenSinceSubscribe = 0;
      const subscription = await peer.request('events.subscribe', {
        after_seq: this.cursor.seq,
        ...(this.cursor.logId ? { log_id: this.cursor.logId } : {}),
      });
      // Everything received since the request came from this daemon's log: replayed events,
      // and live ones that may already have overtaken the answer. The cursor is the higher of
      // those and the log's last seq — also after a gap (pruned events, another event log).
      this.cursor = { seq: Math.max(subscription.last_seq, this.seenSinceSubscribe), logId: subscription.log_id };
      this.setState({ lastEventSeq: this.cursor.seq });
      this.scheduleCursorSave();
      void this.askStorage(peer);
    } catch (error) {
      const appError = toAppError(error);
      // A closed port is handled by onDisconnect; anything else is worth showing.
      if (appError.code !== 'DISCONNECTED' && peer === this.peer) {
        this.setState({ error: describeError(appError.code, appError.message) });
      }
    }
  }

  /**
   * Whether the daemon can save, from its status. Asked after subscribing, so a `storage.health`
   * event that changes it again arrives after this answer. Not a connection error when it fails
   * (a daemon busy or gone): the banner just waits for the next event or connection.
   */
  private async askStorage(peer: DaemonClientPeer): Promise<void> {
    try {
      const { storage } = await peer.request('daemon.status', {});
      if (peer === this.peer) this.setState({ storage });
    } catch (error) {
      console.warn('NextAI: could not ask the daemon whether it can save.', error);
    }
  }

  private onDaemonEvent(event: DaemonEvent): void {
    // Each subscription delivers events once and in order. (After a service-worker restart the
    // last ≤250 ms of events, saved late, may come again; listeners key them by seq.)
    this.seenSinceSubscribe = Math.max(this.seenSinceSubscribe, event.seq);
    this.cursor = { ...this.cursor, seq: event.seq };
    this.setState({ lastEventSeq: this.cursor.seq });
    this.scheduleCursorSave();
    if (event.type === 'storage.health') {
      const storage = storageHealthSchema.safeParse(event.data);
      if (storage.success) this.setState({ storage: storage.data });
    }
    for (const listener of this.eventListeners) listener(event);
  }

  private onClosed(reason: { code: string; message: string }): void {
    this.teardownPort();
    if (this.stopped) return;
    const backoff = this.options.backoffMs ?? DEFAULT_BACKOFF_MS;
    const wait = backoff[Math.min(this.attempts, backoff.length - 1)] ?? 30_000;
    this.attempts += 1;
    this.setState({
      status: 'disconnected',
      daemonRestarting: false,
      // Whatever the daemon said about its storage is unknown until it says it again.
      storage: undefined,
      error: describeError(reason.code, reason.message),
      nextRetryAt: this.now() + wait,
    });
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }

  private teardownPort(): void {
    const port = this.port;
    this.port = undefined;
    this.peer?.close(new AppError('DISCONNECTED', 'The connection to the native host closed.'));
    this.peer = undefined;
    port?.disconnect();
  }

  private scheduleCursorSave(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.options.saveCursor(this.cursor).catch((error: unknown) => {
        console.warn('NextAI: could not save the event cursor; events may be replayed after a restart.', error);
      });
    }, 250);
  }

  private setState(patch: Partial<ConnectionState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.stateListeners) listener(this.state);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function describeError(code: string, message: string): NonNullable<ConnectionState['error']> {
  return { code, message, hostMissing: HOST_MISSING_PATTERNS.some((pattern) => pattern.test(message)) };
}
