import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';

import { AppError, PROTOCOL_VERSION, VERSION, type DaemonInfo, type Platform } from '@nextai/shared';

import type { Logger } from '../logger.js';
import type { DataPaths } from '../paths.js';
import { clearStoppedMarker, writeStoppedMarker } from '../client/daemon-launcher.js';
import { hostHandlers } from '../tools/host-handlers.js';
import type { HostHandlers } from '../tools/types.js';
import { ClientConnection } from './client-connection.js';
import { openDatabase, type Db } from './database.js';
import { EventLog } from './event-log.js';
import { InstanceLock, ensurePrivateDirectory } from './instance-lock.js';
import { ToolGateway } from './tool-gateway.js';

export interface DaemonOptions {
  paths: DataPaths;
  platform: Platform;
  log: Logger;
  handlers?: HostHandlers;
}

/**
 * The long-running process that owns all state: the SQLite database, the event log, the tools.
 * Clients reach it over a local socket only its user can open.
 */
export class Daemon {
  readonly info: DaemonInfo;
  /** Resolves when the daemon has fully stopped. */
  readonly stopped: Promise<void>;
  private readonly connections = new Set<ClientConnection>();
  private readonly gateway: ToolGateway;
  private readonly startedAt = Date.now();
  private stopping = false;
  private resolveStopped!: () => void;

  private constructor(
    private readonly options: DaemonOptions,
    private readonly lock: InstanceLock,
    private readonly db: Db,
    readonly events: EventLog,
    private readonly server: net.Server,
  ) {
    this.info = {
      version: VERSION,
      protocol_version: PROTOCOL_VERSION,
      pid: process.pid,
      platform: options.platform,
      arch: os.arch(),
      data_dir: options.paths.dataDir,
      started_at: new Date(this.startedAt).toISOString(),
    };
    this.stopped = new Promise((resolve) => {
      this.resolveStopped = resolve;
    });
    this.gateway = new ToolGateway({
      handlers: options.handlers ?? hostHandlers,
      platform: options.platform,
      paths: options.paths,
      log: options.log.child('tools'),
      events,
      browserClients: () => [...this.connections].filter((connection) => connection.canRunBrowserTools()).reverse(),
    });
    server.on('connection', (socket) => this.accept(socket));
    // After listen, errors are per-connection trouble (e.g. EMFILE when out of file handles):
    // log them; the daemon keeps serving the clients it has.
    server.on('error', (error) => options.log.error('socket server error', { error: error.message }));
  }

  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths, log } = options;
    ensurePrivateDirectory(paths.dataDir);
    const lock = InstanceLock.acquire(paths);
    let db: Db | undefined;
    try {
      // Starting is the explicit act that ends a stop on purpose.
      clearStoppedMarker(paths);
      db = await openDatabase(paths.database, log.child('db'));
      const events = new EventLog(db);
      const server = await listen(paths.socket, options.platform);
      const daemon = new Daemon(options, lock, db, events, server);
      events.append('daemon.started', { pid: process.pid, version: VERSION });
      log.info('daemon started', { pid: process.pid, socket: paths.socket, data_dir: paths.dataDir });
      return daemon;
    } catch (error) {
      db?.close();
      lock.release();
      throw error;
    }
  }

  /**
   * Stops accepting clients, aborts running tools, closes every connection and the database.
   * `stayStopped`: stopped on purpose by a person — nothing restarts it until they start it.
   */
  async stop(reason: string, options: { stayStopped?: boolean } = {}): Promise<void> {
    if (this.stopping) return this.stopped;
    this.stopping = true;
    this.options.log.info('daemon stopping', { reason });
    if (options.stayStopped) writeStoppedMarker(this.options.paths, reason);
    this.events.append('daemon.stopping', { reason });
    this.gateway.abortAll(`The daemon is stopping (${reason}).`);
    const serverClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.close();
    await serverClosed;
    this.db.close();
    if (this.options.platform !== 'windows') fs.rmSync(this.options.paths.socket, { force: true });
    this.lock.release();
    this.resolveStopped();
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const log = this.options.log.child('rpc');
    const connection = new ClientConnection(socket, log, (closed) => this.onDisconnect(closed));
    this.connections.add(connection);
    this.registerHandlers(connection);
  }

  private onDisconnect(connection: ClientConnection): void {
    if (!this.connections.delete(connection)) return;
    connection.unsubscribeEvents?.();
    if (connection.info && !this.stopping) {
      this.events.append('client.disconnected', {
        client_id: connection.id,
        kind: connection.info.kind,
        name: connection.info.name,
      });
    }
  }

  private registerHandlers(connection: ClientConnection): void {
    const { peer } = connection;
    peer.onNotification('bridge.register', ({ origin }) => {
      connection.origin = origin;
    });
    peer.handle('daemon.hello', ({ client, protocol_version }) => {
      if (protocol_version !== PROTOCOL_VERSION) {
        throw new AppError(
          'PROTOCOL_MISMATCH',
          `This client speaks protocol ${protocol_version}, the daemon ${PROTOCOL_VERSION} (version ${VERSION}). Update the older of the two.`,
        );
      }
      const first = connection.info === undefined;
      connection.info = client;
      if (first) {
        this.events.append('client.connected', {
          client_id: connection.id,
          kind: client.kind,
          name: client.name,
          ...(connection.origin ? { origin: connection.origin } : {}),
        });
      }
      return { daemon: this.info, client_id: connection.id };
    });
    peer.handle('daemon.status', () => ({
      running: true as const,
      daemon: this.info,
      uptime_ms: Date.now() - this.startedAt,
      clients: [...this.connections]
        .filter((other) => other.info !== undefined)
        .map((other) => ({
          client_id: other.id,
          kind: other.info?.kind ?? 'unknown',
          name: other.info?.name ?? 'unknown',
          version: other.info?.version,
          origin: other.origin,
          connected_at: other.connectedAt,
          is_caller: other === connection,
        })),
      last_event_seq: this.events.lastSeq(),
    }));
    peer.handle('daemon.ping', ({ payload }) =>
      payload === undefined ? { time: Date.now() } : { payload, time: Date.now() },
    );
    peer.handle('daemon.shutdown', ({ reason }) => {
      // Answer first; stop once the answer is on its way.
      setImmediate(() => {
        this.stop(reason ?? `requested by ${connection.label}`, { stayStopped: true }).catch((error: unknown) =>
          this.options.log.error('error while stopping', { error: (error as Error).message }),
        );
      });
      return { stopping: true as const };
    });
    peer.handle('tools.list', () => ({ tools: this.gateway.list() }));
    peer.handle('tools.call', (params) => this.gateway.call(params, connection.info?.kind ?? 'unknown'));
    peer.handle('events.subscribe', ({ after_seq, log_id }) => {
      connection.unsubscribeEvents?.();
      // Replay and switching to live events happen in one synchronous step, so no event can
      // fall between them.
      const { events, gap } = this.events.missedSince(after_seq, log_id);
      for (const event of events) peer.notify('event', event);
      connection.unsubscribeEvents = this.events.subscribe((event) => peer.notify('event', event));
      return { log_id: this.events.logId, last_seq: this.events.lastSeq(), replayed: events.length, gap };
    });
  }
}

/**
 * Listens on the daemon socket. The caller holds the instance lock, so a socket file that is
 * already there belongs to a daemon that died: it is removed, not feared.
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
