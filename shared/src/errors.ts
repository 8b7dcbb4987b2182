import { z } from 'zod';

import {
  localizedMessage,
  messageTranslationsSchema,
  verbatim,
  type Localized,
  type MessageTranslations,
} from './i18n.js';

/**
 * Stable error codes. The string is what programs match on (it never changes once released);
 * the number is the JSON-RPC `error.code` the string travels with. Standard JSON-RPC errors keep
 * their standard numbers; the project's own live in the implementation-defined -32000…-32099 band.
 */
export const ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,

  UNKNOWN_TOOL: -32001,
  UNAVAILABLE: -32002,
  INVALID_INPUT: -32003,
  TOOL_FAILED: -32004,

  DAEMON_UNAVAILABLE: -32010,
  DAEMON_ALREADY_RUNNING: -32011,
  PROTOCOL_MISMATCH: -32012,
  STORAGE_ERROR: -32013,
  /**
   * Refused at once for being over a per-client limit (requests waiting from one connection, or
   * connections to the daemon): the daemon runs; retry once earlier requests are answered.
   */
  BUSY: -32014,

  ORIGIN_NOT_ALLOWED: -32020,
  FRAME_TOO_LARGE: -32021,
  FRAME_MALFORMED: -32022,

  TIMEOUT: -32030,
  DISCONNECTED: -32031,
  /** The caller withdrew the request (a stop, the run's end, the caller gone): no answer follows. */
  CANCELLED: -32032,

  POLICY_BLOCKED: -32050,
  APPROVAL_DENIED: -32051,
  APPROVAL_CANCELLED: -32052,
  EMERGENCY_STOPPED: -32053,
  ALREADY_ANSWERED: -32054,
  CONFIG_INVALID: -32055,
  /** A run reached its step, token or cost limit. */
  LIMIT_REACHED: -32056,
  /** Something only the person may do (answer approvals, reset the stop, change policy) asked by anyone else. */
  NOT_THE_PERSON: -32057,

  NOT_WRITABLE: -32040,
  PERMISSION_DENIED: -32041,
  NOT_FOUND: -32042,
  INVALID_ARGUMENT: -32043,

  /** Browser tools: what a model can act on when a page does not do what it expected. */
  STALE_REF: -32060,
  AMBIGUOUS_TARGET: -32061,
  NOT_ACTIONABLE: -32062,
  PAGE_NAVIGATED: -32063,
  TAB_CLOSED: -32064,
  RESTRICTED_PAGE: -32065,
  TAB_NOT_GIVEN: -32066,
  /** A sensitive page action whose target changed after the policy decided (needs a new decision). */
  TARGET_CHANGED: -32067,

  /** The operating-system sandbox could not start, so the command was not run (never unconfined instead). */
  SANDBOX_UNAVAILABLE: -32070,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

const errorCodeNames = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
export const errorCodeSchema = z.enum(errorCodeNames);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The `error` member of a JSON-RPC response, as it crosses the wire. */
export const wireErrorSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z
    .object({
      code: z.string(),
      details: z.unknown().optional(),
      translations: messageTranslationsSchema.optional(),
    })
    .loose()
    .optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;

/**
 * The one error type of the project. `message` tells a person what happened and what to do;
 * `code` is for programs; `details` is serialisable context (a path, a list of valid names).
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly details: unknown;
  /** The message in the panel's other languages, when it is one a person is shown (a run's failure). */
  readonly translations: MessageTranslations | undefined;

  /** `message` is English, or every shipped language (see i18n.ts), English being the message. */
  constructor(
    code: ErrorCode,
    message: string | Localized,
    options: { cause?: unknown; details?: unknown; translations?: MessageTranslations | undefined } = {},
  ) {
    const english = typeof message === 'string' ? message : message.en;
    super(english, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.translations = typeof message === 'string' ? options.translations : { 'zh-CN': message['zh-CN'] };
  }

  toWire(): WireError {
    const data: { code: string; details?: unknown; translations?: MessageTranslations } = { code: this.code };
    if (this.details !== undefined) data.details = this.details;
    if (this.translations !== undefined) data.translations = this.translations;
    return { code: ERROR_CODES[this.code], message: this.message, data };
  }

  static fromWire(error: WireError): AppError {
    const code = isErrorCode(error.data?.code) ? error.data.code : codeForNumber(error.code);
    return new AppError(code, error.message, { details: error.data?.details, translations: error.data?.translations });
  }
}

function codeForNumber(numeric: number): ErrorCode {
  const match = errorCodeNames.find((name) => ERROR_CODES[name] === numeric);
  return match ?? 'INTERNAL';
}

/** Turns anything thrown into an AppError, keeping the original as `cause`. */
export function toAppError(error: unknown, fallback: ErrorCode = 'INTERNAL'): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AppError(fallback, message, { cause: error });
}

/** What went wrong, in every language: an AppError's translations when it has them, else its English. */
export function localizedError(error: unknown): Localized {
  if (error instanceof AppError) return localizedMessage(error.message, error.translations);
  return verbatim(error instanceof Error ? error.message : String(error));
}

/** Renders zod issues as short lines a person (or a model) can act on. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}
