import type { z } from 'zod';

import { DEFAULT_REQUEST_TIMEOUT_MS } from '../constants.js';
import { AppError, describeZodError, toAppError } from '../errors.js';
import {
  classifyMessage,
  errorResponse,
  requestIdOf,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from './jsonrpc.js';
import type { MethodTable, NotificationTable } from './methods.js';

type Awaitable<T> = T | Promise<T>;

export type RequestHandlers<In extends MethodTable> = {
  [M in keyof In]?: (params: z.output<In[M]['params']>) => Awaitable<z.input<In[M]['result']>>;
};

export type NotificationHandlers<N extends NotificationTable> = {
  [K in keyof N]?: (params: z.output<N[K]>) => void;
};

export interface PeerOptions<
  Out extends MethodTable,
  In extends MethodTable,
  NotifyOut extends NotificationTable,
  NotifyIn extends NotificationTable,
> {
  /** Writes one message to the other side; may throw (e.g. a frame over the size limit). */
  send: (message: JsonRpcMessage) => void;
  outgoing: Out;
  incoming: In;
  outgoingNotifications: NotifyOut;
  incomingNotifications: NotifyIn;
  handlers?: RequestHandlers<In>;
  notificationHandlers?: NotificationHandlers<NotifyIn>;
  requestTimeoutMs?: number;
  /** Called for what cannot be answered: bad notifications, stray responses, failed sends. */
  onProtocolError?: (error: AppError) => void;
}

interface PendingRequest {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: AppError) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface RequestOptions {
  timeoutMs?: number;
}

/** What {@link JsonRpcPeer.receive} returns for a message that is handled as it arrives. */
const HANDLED: Promise<void> = Promise.resolve();

/**
 * One side of a JSON-RPC 2.0 conversation over any message transport. Every message received is
 * validated: the envelope, then the params of requests and notifications against the method
 * table, and the results of our own requests against theirs. Every pending request either gets
 * its answer, times out, or is rejected when the peer closes — none is left hanging.
 */
export class JsonRpcPeer<
  Out extends MethodTable,
  In extends MethodTable,
  NotifyOut extends NotificationTable,
  NotifyIn extends NotificationTable,
> {
  private readonly options: PeerOptions<Out, In, NotifyOut, NotifyIn>;
  // Stored untyped: the method tables check params and results at run time, the public
  // signatures check them at compile time.
  private readonly handlers = new Map<string, (params: unknown) => Awaitable<unknown>>();
  private readonly notificationHandlers = new Map<string, (params: unknown) => void>();
  private readonly pending = new Map<RequestId, PendingRequest>();
  private nextId = 1;
  private closedWith: AppError | undefined;

  constructor(options: PeerOptions<Out, In, NotifyOut, NotifyIn>) {
    this.options = options;
    for (const [method, handler] of Object.entries(options.handlers ?? {})) {
      if (handler) this.handlers.set(method, handler as (params: unknown) => Awaitable<unknown>);
    }
    for (const [method, handler] of Object.entries(options.notificationHandlers ?? {})) {
      if (handler) this.notificationHandlers.set(method, handler as (params: unknown) => void);
    }
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  handle<M extends keyof In & string>(method: M, handler: NonNullable<RequestHandlers<In>[M]>): void {
    this.handlers.set(method, handler as (params: unknown) => Awaitable<unknown>);
  }

  onNotification<K extends keyof NotifyIn & string>(
    method: K,
    handler: NonNullable<NotificationHandlers<NotifyIn>[K]>,
  ): void {
    this.notificationHandlers.set(method, handler as (params: unknown) => void);
  }

  request<M extends keyof Out & string>(
    method: M,
    params: z.input<Out[M]['params']>,
    options: RequestOptions = {},
  ): Promise<z.output<Out[M]['result']>> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AppError('TIMEOUT', `No answer to "${method}" within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
      });
      try {
        this.options.send({ jsonrpc: '2.0', id, method, params: params as Record<string, unknown> });
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(toAppError(error));
      }
    });
  }

  notify<K extends keyof NotifyOut & string>(method: K, params: z.input<NotifyOut[K]>): void {
    if (this.closedWith) return;
    this.options.send({ jsonrpc: '2.0', method, params: params as Record<string, unknown> });
  }

  /**
   * Feeds one decoded JSON value received from the other side. Never throws, and the promise never
   * rejects: it settles once the message is handled — a request once it is answered (or cannot
   * be), anything else at once — so a caller can count the requests still in flight.
   */
  receive(value: unknown): Promise<void> {
    if (this.closedWith) return HANDLED;
    let classified;
    try {
      classified = classifyMessage(value);
    } catch (error) {
      this.replyError(requestIdOf(error), toAppError(error, 'INVALID_REQUEST'));
      return HANDLED;
    }
    switch (classified.kind) {
      case 'request':
        return this.dispatchRequest(classified.message);
      case 'notification':
        this.dispatchNotification(classified.message.method, classified.message.params ?? {});
        return HANDLED;
      case 'success':
        this.settle(classified.message.id, (pending) => {
          const spec = this.options.outgoing[pending.method];
          const parsed = spec ? spec.result.safeParse(classified.message.result) : undefined;
          if (!parsed || parsed.success) pending.resolve(parsed ? parsed.data : classified.message.result);
          else {
            pending.reject(
              new AppError(
                'PROTOCOL_MISMATCH',
                `The answer to "${pending.method}" is not what this version expects: ${describeZodError(parsed.error)}`,
              ),
            );
          }
        });
        return HANDLED;
      case 'error': {
        const { id, error } = classified.message;
        if (id === null) {
          this.options.onProtocolError?.(AppError.fromWire(error));
          return HANDLED;
        }
        this.settle(id, (pending) => pending.reject(AppError.fromWire(error)));
        return HANDLED;
      }
    }
  }

  /** Rejects every pending request with `reason`; later calls fail with it too. */
  close(reason: AppError = new AppError('DISCONNECTED', 'The connection closed.')): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(reason);
      this.pending.delete(id);
    }
  }

  private settle(id: RequestId, action: (pending: PendingRequest) => void): void {
    const pending = this.pending.get(id);
    if (!pending) {
      this.options.onProtocolError?.(
        new AppError('INVALID_REQUEST', `Received an answer for unknown or expired request ${String(id)}.`),
      );
      return;
    }
    this.pending.delete(id);
    clearTimeout(pending.timer);
    action(pending);
  }

  private async dispatchRequest(request: JsonRpcRequest): Promise<void> {
    const spec = this.options.incoming[request.method];
    const handler = this.handlers.get(request.method);
    if (!spec || !handler) {
      const known = Object.keys(this.options.incoming).join(', ');
      this.replyError(
        request.id,
        new AppError('METHOD_NOT_FOUND', `Unknown method "${request.method}". Known methods: ${known}.`),
      );
      return;
    }
    const params = spec.params.safeParse(request.params ?? {});
    if (!params.success) {
      this.replyError(
        request.id,
        new AppError('INVALID_PARAMS', `Invalid params for "${request.method}": ${describeZodError(params.error)}`),
      );
      return;
    }
    let result: unknown;
    try {
      result = await handler(params.data);
    } catch (error) {
      this.replyError(request.id, toAppError(error));
      return;
    }
    const checked = spec.result.safeParse(result);
    if (!checked.success) {
      this.replyError(
        request.id,
        new AppError('INTERNAL', `"${request.method}" produced an invalid result: ${describeZodError(checked.error)}`),
      );
      return;
    }
    if (this.closedWith) return;
    try {
      this.options.send({ jsonrpc: '2.0', id: request.id, result: checked.data });
    } catch (error) {
      this.replyError(request.id, toAppError(error));
    }
  }

  private dispatchNotification(method: string, params: Record<string, unknown>): void {
    const schema = this.options.incomingNotifications[method];
    const handler = this.notificationHandlers.get(method);
    if (!schema) {
      this.options.onProtocolError?.(new AppError('METHOD_NOT_FOUND', `Unknown notification "${method}".`));
      return;
    }
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      this.options.onProtocolError?.(
        new AppError('INVALID_PARAMS', `Invalid notification "${method}": ${describeZodError(parsed.error)}`),
      );
      return;
    }
    try {
      handler?.(parsed.data);
    } catch (error) {
      this.options.onProtocolError?.(toAppError(error));
    }
  }

  private replyError(id: RequestId | null, error: AppError): void {
    if (this.closedWith) return;
    try {
      this.options.send(errorResponse(id, error.toWire()));
    } catch (sendError) {
      this.options.onProtocolError?.(toAppError(sendError));
    }
  }
}
