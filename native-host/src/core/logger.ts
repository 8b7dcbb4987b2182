import pino from 'pino';

import {
  DEFAULT_ROTATION,
  LogFile,
  flushAllSync,
  stderrIsWatched,
  writeStderr,
  type RotationOptions,
} from './log-file.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

export interface LoggerOptions {
  component: string;
  /** Append to this file (created with its directory), rotated by size. */
  file?: string;
  /**
   * Also write the lines, readably, to stderr: `true` always; `'auto'` when stderr is a terminal,
   * a pipe or a socket — a person or a program reading along — and not when it is a regular file
   * (a launcher's redirect: the log file is the place then). Without it, stderr gets the lines
   * only while the file cannot be written. Never stdout: in `nextai host` stdout belongs to the
   * protocol.
   */
  stderr?: boolean | 'auto';
  /** The lowest level written; `NEXTAI_LOG_LEVEL` (debug, info, warn, error), else info. */
  level?: LogLevel;
  /** Where the file is cut: 10 MiB, 5 old files kept, unless given. */
  rotation?: RotationOptions;
}

/**
 * pino, writing JSON lines (`{"level":"info","time":"…","component":"daemon",…,"msg":"…"}`) to a
 * file through an asynchronous, size-rotated destination (core/log-file.ts), flushed when the
 * process exits. stderr, where a person reads, gets the same lines rendered as
 * `time level [component] message key=value…` ({@link renderLogLine}, which `nextai` also uses
 * to show the end of daemon.log).
 *
 * Never throws and never ends the process: a full disk or an unwritable file loses lines (said
 * once on stderr, and the lines go there meanwhile), nothing else.
 */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? levelFromEnvironment();
  const stderrAllowed = options.stderr === true || options.stderr === 'auto';
  const echo = options.stderr === true || (options.stderr === 'auto' && stderrIsWatched());
  const meanwhile = stderrAllowed && !echo ? '; its lines go to stderr until it works again' : '';
  const file = options.file
    ? new LogFile(options.file, options.rotation ?? DEFAULT_ROTATION, {
        onFailure: (error) =>
          writeStderr(`nextai: cannot write the log file ${options.file}: ${error.message}${meanwhile}\n`),
        // Called later, once `self` exists.
        onRecovery: (dropped) => {
          if (dropped > 0) {
            self.warn('the log file could not be written for a while; lines are missing', { dropped_lines: dropped });
          }
        },
        onRotationFailure: (error) =>
          writeStderr(`nextai: cannot rotate the log file ${options.file}: ${error.message}; it keeps growing\n`),
      })
    : undefined;
  const destination: pino.DestinationStream = {
    write(line: string) {
      file?.write(line);
      if (echo || (stderrAllowed && file?.failing)) writeStderr(`${renderLogLine(line)}\n`);
    },
  };
  const root = pino(
    {
      // Nothing to write to (most loggers in tests): pino does not even format the lines.
      level: file || stderrAllowed ? level : 'silent',
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: plainFields },
    },
    destination,
  );
  const make = (component: string): Logger => {
    const log = root.child({ component });
    return {
      debug: (message, fields) => (fields ? log.debug(fields, message) : log.debug(message)),
      info: (message, fields) => (fields ? log.info(fields, message) : log.info(message)),
      warn: (message, fields) => (fields ? log.warn(fields, message) : log.warn(message)),
      error: (message, fields) => (fields ? log.error(fields, message) : log.error(message)),
      // From the root, not from `log`: pino would repeat the `component` key of each ancestor.
      child: (name) => make(`${component}:${name}`),
    };
  };
  const self = make(options.component);
  return self;
}

/**
 * Writes out every logger's buffered lines now, blocking. The 'exit' event does this anyway
 * (including when an uncaught exception ends the process); for a caller that must not rely on it.
 */
export function flushLogs(): void {
  flushAllSync();
}

function levelFromEnvironment(): LogLevel {
  const value = process.env.NEXTAI_LOG_LEVEL;
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error' ? value : 'info';
}

/** Keys of the line itself: a field of the same name is written as `<name>_`. */
const LINE_KEYS = new Set(['level', 'time', 'component', 'msg']);

/** The fields as they go in the line: an Error as its message (pino would write `{}`). */
function plainFields(fields: Record<string, unknown>): Record<string, unknown> {
  let plain: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    const renamed = LINE_KEYS.has(key);
    if (!renamed && !(value instanceof Error)) continue;
    plain ??= { ...fields };
    if (renamed) delete plain[key];
    plain[renamed ? `${key}_` : key] = value instanceof Error ? value.message : value;
  }
  return plain ?? fields;
}

/**
 * A line of a log file as a person reads it: `time level [component] message key=value…`, each
 * value as JSON (strings quoted). A line that is not one of the logger's (Node's report of a
 * crash, a message printed before the logger existed) is returned as it is.
 */
export function renderLogLine(line: string): string {
  const text = line.trimEnd();
  if (!text.startsWith('{')) return text;
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof entry !== 'object' || entry === null || typeof (entry as { msg?: unknown }).msg !== 'string') return text;
  const { time, level, component, msg, ...fields } = entry as Record<string, unknown>;
  const head = [typeof time === 'string' ? time : '', String(level ?? '').padEnd(5)].join(' ');
  const where = typeof component === 'string' ? ` [${component}]` : '';
  return `${head}${where} ${String(msg)}${formatFields(fields)}`;
}

function formatFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${safeJson(value)}`)
    .join('');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
