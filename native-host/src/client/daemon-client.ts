import type net from 'node:net';

import {
  AppError,
  MAX_SOCKET_FRAME_BYTES,
  PROTOCOL_VERSION,
  VERSION,
  createDaemonClientPeer,
  type ClientInfo,
  type DaemonClientPeer,
  type DaemonInfo,
} from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import { FramedStream } from '../transport/framed-stream.js';
import { ensureDaemon } from './daemon-launcher.js';

/** A CLI-side (or test-side) connection to the daemon, after `daemon.hello`. */
export class DaemonClient {
  private constructor(
    readonly peer: DaemonClientPeer,
    private readonly stream: FramedStream,
    /** Resolves when the connection is gone, whichever side closed it. */
    readonly disconnected: Promise<void>,
    readonly daemon: DaemonInfo,
    readonly clientId: string,
    readonly startedDaemon: boolean,
  ) {}

  static async connect(
    paths: DataPaths,
    options: { start: boolean; client?: Partial<ClientInfo>; log?: Logger },
  ): Promise<DaemonClient> {
    const { socket, started } = await ensureDaemon(paths, { start: options.start, log: options.log });
    const { peer, stream, disconnected } = attachPeer(socket);
    let hello;
    try {
      hello = await peer.request('daemon.hello', {
        client: { kind: 'cli', name: 'nextai-cli', version: VERSION, ...options.client },
        protocol_version: PROTOCOL_VERSION,
      });
    } catch (error) {
      // Do not keep the process alive on a socket to a daemon that does not answer.
      stream.close();
      socket.destroy();
      throw error;
    }
    return new DaemonClient(peer, stream, disconnected, hello.daemon, hello.client_id, started);
  }

  close(): void {
    this.stream.close();
  }
}

function attachPeer(socket: net.Socket): { peer: DaemonClientPeer; stream: FramedStream; disconnected: Promise<void> } {
  let markDisconnected!: () => void;
  const disconnected = new Promise<void>((resolve) => {
    markDisconnected = resolve;
  });
  const peer = createDaemonClientPeer({
    send: (message) => stream.send(message),
    // A connection the daemon refused (too many clients) gets one error frame, then closes: that
    // error, not "the daemon closed the connection", is what the requests made on it fail with.
    onProtocolError: (error) => {
      if (error.code === 'BUSY') peer.close(error);
    },
  });
  const stream: FramedStream = new FramedStream({
    readable: socket,
    writable: socket,
    maxInboundBytes: MAX_SOCKET_FRAME_BYTES,
    maxOutboundBytes: MAX_SOCKET_FRAME_BYTES,
    onMessage: (value) => peer.receive(value),
    onFrameError: (error) => peer.close(error),
    onInputEnd: (reason) => {
      stream.close();
      socket.destroy();
      peer.close(reason ?? new AppError('DAEMON_UNAVAILABLE', 'The daemon closed the connection.'));
      markDisconnected();
    },
  });
  return { peer, stream, disconnected };
}
