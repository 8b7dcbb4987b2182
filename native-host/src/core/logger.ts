import fs from 'node:fs';
import path from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

export interface LoggerOptions {
  component: string;
  /** Append to this file (created with its directory). */
  file?: string;
  /** Also write to stderr. Never stdout: in `nextai host` stdout belongs to the protocol. */
  stderr?: boolean;
  level?: LogLevel;
}

/** Line-oriented logs: `time level [component] message key=value…`. */
export function createLogger(options: LoggerOptions): Logger {
  const minimum = LEVEL_ORDER[options.level ?? levelFromEnvironment()];
  let fileDescriptor: number | undefined;
  if (options.file) {
    try {
      fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
      fileDescriptor = fs.openSync(options.file, 'a', 0o600);
    } catch (error) {
      process.stderr.write(`nextai: cannot open log file ${options.file}: ${String(error)}\n`);
    }
  }

  const make = (component: string): Logger => {
    const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (LEVEL_ORDER[level] < minimum) return;
      const line = `${new Date().toISOString()} ${level.padEnd(5)} [${component}] ${message}${formatFields(fields)}\n`;
      if (fileDescriptor !== undefined) {
        try {
          fs.writeSync(fileDescriptor, line);
        } catch {
          // A full disk must not take the daemon down; the line still goes to stderr below.
          fileDescriptor = undefined;
        }
      }
      if (options.stderr) process.stderr.write(line);
    };
    return {
      debug: (message, fields) => write('debug', message, fields),
      info: (message, fields) => write('info', message, fields),
      warn: (message, fields) => write('warn', message, fields),
      error: (message, fields) => write('error', message, fields),
      child: (name) => make(`${component}:${name}`),
    };
  };
  return make(options.component);
}

function levelFromEnvironment(): LogLevel {
  const value = process.env.NEXTAI_LOG_LEVEL;
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error' ? value : 'info';
}

function formatFields(fields?: Record<string, unknown>): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${typeof value === 'string' ? JSON.stringify(value) : safeJson(value)}`)
    .join('');
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
