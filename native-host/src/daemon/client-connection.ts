import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';

import {
  AppError,
  MAX_SOCKET_FRAME_BYTES,
  createDaemonSidePeer,
  type ClientInfo,
  type DaemonSidePeer,
} from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { FramedStream } from '../transport/framed-stream.js';
import type { ProcessVerdict } from './identity/agent-process.js';

/** One client on the daemon socket: a browser's bridge, a CLI invocation, an MCP server. */
export class ClientConnection {
  readonly id = randomUUID();
  readonly connectedAt = new Date().toISOString();
  readonly peer: DaemonSidePeer;
  /** Set by `daemon.hello`. */
  info: ClientInfo | undefined;
  /** Set by `bridge.register`: the extension origin the bridge verified. */
  origin: string | undefined;
  unsubscribeEvents: (() => void) | undefined;
  private readonly stream: FramedStream;
  private readonly closed = new AbortController();

  /**
   * @param process what the process on the other end was judged to be when it connected (the
   *   kernel names it; judged at once, before it could exit and its pid be reused): what the
   *   person's authority is checked against.
   */
  constructor(
    socket: Socket,
    log: Logger,
    onClose: (connection: ClientConnection) => void,
    readonly process: Promise<ProcessVerdict> = Promise.resolve({
      known: false,
      reason: 'the connection was not looked up',
    }),
  ) {
    this.stream = new FramedStream({
      readable: socket,
      writable: socket,
      maxInboundBytes: MAX_SOCKET_FRAME_BYTES,
      maxOutboundBytes: MAX_SOCKET_FRAME_BYTES,
      onMessage: (value) => this.peer.receive(value),
      onFrameError: (error, fatal) => {
        log.warn('bad frame from client', { client: this.id, code: error.code, error: error.message, fatal });
        // The frame boundary is intact after a bad payload: answer it and go on.
        if (!fatal) this.sendParseError(error.toWire());
      },
      onInputEnd: () => {
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

  /** Aborted when this client disconnects: its pending approvals close, its running calls stop. */
  get closedSignal(): AbortSignal {
    return this.closed.signal;
  }

  get label(): string {
    return this.info ? `${this.info.kind}:${this.info.name}` : `unidentified:${this.id.slice(0, 8)}`;
  }

  canRunBrowserTools(): boolean {
    return this.info?.capabilities.includes('browser_tools') ?? false;
  }

  close(): void {
    this.stream.close();
  }

  private sendParseError(error: { code: number; message: string }): void {
    if (this.stream.isClosed) return;
    this.stream.send({ jsonrpc: '2.0', id: null, error });
  }
}
