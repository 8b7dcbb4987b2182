// How the macOS adapters talk to the system: JavaScript for Automation (`osascript -l JavaScript`)
// and a few command-line programs (screencapture, pbcopy, open, kill).
//
// Not run on a real macOS machine; command construction and parsing are unit-tested.
//
// Every script is a constant: the program text never contains user data. The request (text to
// type, a window title, PNG bytes…) travels as JSON on stdin, escaped to ASCII, and the script's
// reply comes back the same way — so quotes, backslashes, newlines, emoji or an AppleScript
// fragment in a title stay data, whatever the locale of the daemon.
//
// Cost: one `osascript` start is roughly 50–120 ms (JavaScriptCore plus the ObjC bridge). Because
// every script is constant text plus a JSON request, a long-lived helper that reads one request per
// line can run the same scripts later: `JxaHost` is that seam (today `oneShotJxaHost`).
import { AppError, isErrorCode } from '@nextai/shared';
import { z } from 'zod';

import type { RunResult } from '../../core/subprocess.js';
import { asciiJson, execCommand, failureStderr, type CommandSpec, type Exec } from '../command-exec.js';

export const ACCESSIBILITY_MESSAGE =
  'macOS has not allowed NextAI to control the mouse, keyboard and windows. Open System Settings › Privacy & Security › Accessibility and turn on the app that runs the NextAI daemon (Terminal, iTerm, or node), then try again; `nextai doctor` checks this.';

export const SCREEN_RECORDING_MESSAGE =
  'macOS has not allowed NextAI to record the screen. Open System Settings › Privacy & Security › Screen Recording ("Screen & System Audio Recording" on macOS 15) and turn on the app that runs the NextAI daemon (Terminal, iTerm, or node), then restart the daemon; `nextai doctor` checks this.';

export const AUTOMATION_MESSAGE =
  'macOS has not allowed NextAI to control System Events. Open System Settings › Privacy & Security › Automation and allow the app that runs the NextAI daemon to control "System Events", then try again.';

/**
 * Shared by every script: reads the request from stdin as UTF-8 (explicitly, not by locale),
 * calls the script's `main(request)`, and prints `{ ok, value }` or `{ ok: false, code, number,
 * message }` as ASCII JSON. `number` is the Apple event error number (-1719: no Accessibility,
 * -1743: no Automation permission). Scripts signal their own errors with `nextaiFail(code, text)`.
 */
export const JXA_PRELUDE = String.raw`
ObjC.import('Foundation');
function nextaiFail(code, message) {
  var error = new Error(message);
  error.nextaiCode = code;
  throw error;
}
function nextaiAscii(value) {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, function (unit) {
    return '\\u' + ('0000' + unit.charCodeAt(0).toString(16)).slice(-4);
  });
}
function run() {
  try {
    var input = $.NSFileHandle.fileHandleWithStandardInput.readDataToEndOfFile;
    var text = ObjC.unwrap($.NSString.alloc.initWithDataEncoding(input, $.NSUTF8StringEncoding));
    var value = main(JSON.parse(text || '{}'));
    return nextaiAscii({ ok: true, value: value === undefined ? null : value });
  } catch (error) {
    return nextaiAscii({
      ok: false,
      code: (error && error.nextaiCode) || null,
      number: error && typeof error.errorNumber === 'number' ? error.errorNumber : null,
      message: String((error && error.message) || error),
    });
  }
}
`;

/** The osascript invocation for a script and its request. */
export function jxaCommand(script: string, request: unknown): CommandSpec {
  return {
    command: 'osascript',
    args: ['-l', 'JavaScript', '-e', `${JXA_PRELUDE}\n${script}`],
    input: asciiJson(request),
  };
}

const replySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({
    ok: z.literal(false),
    code: z.string().nullable(),
    number: z.number().nullable(),
    message: z.string(),
  }),
]);

export type JxaFailure = { code: string | null; number: number | null; message: string };

const ACCESSIBILITY_NUMBERS = new Set([-1719, -25211, -25204, 1002]);
const AUTOMATION_NUMBERS = new Set([-1743, -10004]);

/** The AppError a failed script stands for: permission problems name the setting that fixes them. */
export function jxaError(failure: JxaFailure): AppError {
  const { code, number, message } = failure;
  if (
    code === 'NEEDS_ACCESSIBILITY' ||
    (number !== null && ACCESSIBILITY_NUMBERS.has(number)) ||
    /assistive access|not allowed to send keystrokes/i.test(message)
  ) {
    return new AppError('UNAVAILABLE', ACCESSIBILITY_MESSAGE, { details: failure });
  }
  if (code === 'NEEDS_SCREEN_RECORDING') return new AppError('UNAVAILABLE', SCREEN_RECORDING_MESSAGE);
  if ((number !== null && AUTOMATION_NUMBERS.has(number)) || /not authori[sz]ed to send apple events/i.test(message)) {
    return new AppError('UNAVAILABLE', AUTOMATION_MESSAGE, { details: failure });
  }
  if (code !== null && isErrorCode(code)) return new AppError(code, message);
  const suffix = number === null ? '' : ` (error ${number})`;
  return new AppError('TOOL_FAILED', `A macOS automation script failed: ${message}${suffix}`, { details: failure });
}

/** Parses what a script printed; resolves with its value or throws the matching AppError. */
export function parseJxaReply(stdout: string): unknown {
  const text = stdout.trim();
  let reply: z.infer<typeof replySchema>;
  try {
    reply = replySchema.parse(JSON.parse(text));
  } catch (error) {
    throw new AppError('TOOL_FAILED', `osascript printed something unexpected: ${text.slice(0, 300)}`, {
      cause: error,
    });
  }
  if (reply.ok) return reply.value;
  throw jxaError(reply);
}

/**
 * osascript itself failing (a compile error, a crash, a permission refused before our script ran):
 * its stderr ends in "(-1743)" and the like, which maps to the same permission messages. The
 * message names stderr only — runCommand's own would quote the whole script.
 */
export function osascriptFailure(error: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'TOOL_FAILED') return error;
  const stderr = failureStderr(error);
  const number = /\((-?\d+)\)\s*$/.exec(stderr)?.[1];
  return jxaError({
    code: null,
    number: number === undefined ? null : Number(number),
    message: `osascript failed: ${stderr || error.message.slice(0, 300)}`,
  });
}

export interface ScriptOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  maxOutputBytes?: number;
}

/** Runs one constant script with a JSON request and resolves with its value. */
export interface JxaHost {
  run(script: string, request: unknown, options?: ScriptOptions): Promise<unknown>;
}

export const JXA_TIMEOUT_MS = 15_000;

/** One osascript process per call. */
export function oneShotJxaHost(exec: Exec = execCommand): JxaHost {
  return {
    async run(script, request, options = {}) {
      let result: RunResult;
      try {
        result = await exec(jxaCommand(script, request), {
          timeoutMs: options.timeoutMs ?? JXA_TIMEOUT_MS,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
        });
      } catch (error) {
        throw osascriptFailure(error);
      }
      return parseJxaReply(result.stdout);
    },
  };
}

/** What every macOS adapter factory accepts: how to run commands and scripts (tests fake these). */
export interface MacosAdapterOptions {
  exec?: Exec;
  jxa?: JxaHost;
}

export function resolveOptions(options: MacosAdapterOptions = {}): { exec: Exec; jxa: JxaHost } {
  const exec = options.exec ?? execCommand;
  return { exec, jxa: options.jxa ?? oneShotJxaHost(exec) };
}
