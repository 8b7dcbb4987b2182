import type { z } from 'zod';

import { DEFAULT_REQUEST_TIMEOUT_MS } from '../constants.js';
import { AppError, describeZodError, toAppError } from '../errors.js';
import {
  CANCEL_METHOD,
  classifyMessage,
  errorResponse,
  requestIdOf,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from './jsonrpc.js';
import type { MethodTable, NotificationTable } from './methods.js';

type Awaitable<T> = T | Promise<T>;

/** What a request handler is given besides the params. */
export interface RequestContext {
  /**
   * Aborted when the caller withdraws the request (`rpc.cancel`) or the connection closes: the
   * handler stops what it is doing; its answer, if any, is not sent.
   */
  signal: AbortSignal;
}

export type RequestHandlers<In extends MethodTable> = {
  [M in keyof In]?: (params: z.output<In[M]['params']>, context: RequestContext) => Awaitable<z.input<In[M]['result']>>;
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
  /** Removes the request's abort listener (its signal may outlive it). */
  stopListening?: () => void;
}

/** Why a request was withdrawn: the signal's reason when it is an AppError, else CANCELLED. */
function cancelReason(signal: AbortSignal): AppError {
  const reason: unknown = signal.reason;
  if (reason instanceof AppError) return reason;
  const message =
    reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'The request was withdrawn.';
  return new AppError('CANCELLED', message);
}

export interface RequestOptions {
  timeoutMs?: number;
  /**
   * Withdraws the request when aborted: the promise rejects at once with the signal's reason (an
   * AppError), and the other side is told (`rpc.cancel`) so that its handler stops too.
   */
  signal?: AbortSignal;
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
  private readonly handlers = new Map<string, (params: unknown, context: RequestContext) => Awaitable<unknown>>();
  private readonly notificationHandlers = new Map<string, (params: unknown) => void>();
  private readonly pending = new Map<RequestId, PendingRequest>();
  /** The other side's requests being handled, each with what withdraws it. */
  private readonly handling = new Map<RequestId, AbortController>();
  private nextId = 1;
  private closedWith: AppError | undefined;

  constructor(options: PeerOptions<Out, In, NotifyOut, NotifyIn>) {
    this.options = options;
    for (const [method, handler] of Object.entries(options.handlers ?? {})) {
      if (handler)
        this.handlers.set(method, handler as (params: unknown, context: RequestContext) => Awaitable<unknown>);
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
    this.handlers.set(method, handler as (params: unknown, context: RequestContext) => Awaitable<unknown>);
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
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelReason(signal));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        const reason = cancelReason(signal!);
        this.settle(id, (pending) => pending.reject(reason));
        // Tell the other side, so that its handler stops too; a closed transport has nobody to tell.
        try {
          this.options.send({ jsonrpc: '2.0', method: CANCEL_METHOD, params: { id, reason: reason.message } });
        } catch (error) {
          this.options.onProtocolError?.(toAppError(error));
        }
      };
      const timer = setTimeout(() => {
        this.pending.delete(id);
        signal?.removeEventListener('abort', onAbort);
        reject(new AppError('TIMEOUT', `No answer to "${method}" within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
        ...(signal ? { stopListening: () => signal.removeEventListener('abort', onAbort) } : {}),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.options.send({ jsonrpc: '2.0', id, method, params: params as Record<string, unknown> });
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        signal?.removeEventListener('abort', onAbort);
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
        if (classified.message.method === CANCEL_METHOD) this.withdrawn(classified.message.params ?? {});
        else this.dispatchNotification(classified.message.method, classified.message.params ?? {});
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
      pending.stopListening?.();
      pending.reject(reason);
      this.pending.delete(id);
    }
    // Nobody is left to take the answers of the requests being handled: they stop.
    for (const controller of this.handling.values()) controller.abort(reason);
    this.handling.clear();
  }

  /** `rpc.cancel` from the other side: the request it names is aborted (an unknown id is ignored: it has just been answered). */
  private withdrawn(params: Record<string, unknown>): void {
    const id = params.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const reason = typeof params.reason === 'string' && params.reason !== '' ? params.reason.slice(0, 500) : undefined;
    this.handling.get(id)?.abort(new AppError('CANCELLED', reason ?? 'The caller withdrew the request.'));
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
    pending.stopListening?.();
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
    const controller = new AbortController();
    // A request id used twice while the first is handled: each keeps its own signal, the map the newest.
    this.handling.set(request.id, controller);
    try {
      result = await handler(params.data, { signal: controller.signal });
    } catch (error) {
      if (controller.signal.aborted) return;
      this.replyError(request.id, toAppError(error));
      return;
    } finally {
      if (this.handling.get(request.id) === controller) this.handling.delete(request.id);
    }
    // Withdrawn: the caller has stopped waiting, and an answer now would be for nobody.
    if (controller.signal.aborted) return;
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
