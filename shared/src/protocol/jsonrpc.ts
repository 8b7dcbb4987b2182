import { z } from 'zod';

import { AppError, describeZodError, wireErrorSchema, type WireError } from '../errors.js';

/**
 * The notification that withdraws a request, in either direction: `{ id, reason }`. JSON-RPC keeps
 * the `rpc.` prefix for such protocol-level methods, so it can never clash with a method table's.
 */
export const CANCEL_METHOD = 'rpc.cancel';

export const requestIdSchema = z.union([z.string().max(200), z.number().int()]);
export type RequestId = z.infer<typeof requestIdSchema>;

const paramsSchema = z.record(z.string(), z.unknown());

export const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestIdSchema,
  method: z.string().min(1).max(200),
  params: paramsSchema.optional(),
});
export const notificationSchema = requestSchema.omit({ id: true });
export const successResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestIdSchema,
  result: z.unknown(),
});
export const errorResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: requestIdSchema.nullable(),
  error: wireErrorSchema,
});

export type JsonRpcRequest = z.infer<typeof requestSchema>;
export type JsonRpcNotification = z.infer<typeof notificationSchema>;
export type JsonRpcSuccess = z.infer<typeof successResponseSchema>;
export type JsonRpcError = z.infer<typeof errorResponseSchema>;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcSuccess | JsonRpcError;

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'success'; message: JsonRpcSuccess }
  | { kind: 'error'; message: JsonRpcError };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a decoded JSON value as a JSON-RPC 2.0 message and says which kind it is. Throws an
 * AppError `INVALID_REQUEST` (with the request id when one could be read) when it is not one.
 * Batches are not part of this protocol and are rejected.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isRecord(value)) {
    throw new AppError('INVALID_REQUEST', 'A JSON-RPC message must be a JSON object (batches are not supported).');
  }
  const candidateId = requestIdSchema.safeParse(value.id);
  const details = candidateId.success ? { id: candidateId.data } : undefined;
  const parseAs = <T>(schema: z.ZodType<T>, label: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new AppError('INVALID_REQUEST', `Invalid JSON-RPC ${label}: ${describeZodError(parsed.error)}`, {
        details,
      });
    }
    return parsed.data;
  };

  if ('method' in value) {
    return 'id' in value
      ? { kind: 'request', message: parseAs(requestSchema, 'request') }
      : { kind: 'notification', message: parseAs(notificationSchema, 'notification') };
  }
  if ('error' in value) return { kind: 'error', message: parseAs(errorResponseSchema, 'error response') };
  if ('result' in value) return { kind: 'success', message: parseAs(successResponseSchema, 'response') };
  throw new AppError('INVALID_REQUEST', 'Not a JSON-RPC message: it has no "method", "result" or "error".', {
    details,
  });
}

/** The id of an invalid message, if it had a usable one, so the error reply can name it. */
export function requestIdOf(error: unknown): RequestId | null {
  if (error instanceof AppError && isRecord(error.details)) {
    const parsed = requestIdSchema.safeParse(error.details.id);
    if (parsed.success) return parsed.data;
  }
  return null;
}

export function errorResponse(id: RequestId | null, error: WireError): JsonRpcError {
  return { jsonrpc: '2.0', id, error };
}
