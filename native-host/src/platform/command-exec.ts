import type { AppError } from '@nextai/shared';

import { runCommand, type RunResult } from '../core/subprocess.js';

/*
 * How the macOS and Windows adapters run programs: a command is data (program, argument array,
 * stdin, extra variables), and an `Exec` runs it, so tests record what would run instead.
 */

/** One program to run: argument array (never a shell string), optional stdin and extra variables. */
export interface CommandSpec {
  command: string;
  args: string[];
  input?: string;
  env?: Record<string, string>;
}

export interface ExecOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  installHint?: string;
}

/** Runs a command; the adapters take one so tests can record what they would run. */
export type Exec = (spec: CommandSpec, options: ExecOptions) => Promise<RunResult>;

export const execCommand: Exec = (spec, options) =>
  runCommand(spec.command, spec.args, {
    timeoutMs: options.timeoutMs,
    ...(spec.input === undefined ? {} : { input: spec.input }),
    ...(spec.env ? { env: spec.env } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
    ...(options.installHint ? { installHint: options.installHint } : {}),
  });

/** JSON with every non-ASCII UTF-16 unit written as \uXXXX: survives any locale or code page. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The stderr runCommand keeps in an AppError's details, if any. */
export function failureStderr(error: AppError): string {
  const details = error.details as { stderr?: unknown } | undefined;
  return typeof details?.stderr === 'string' ? details.stderr.trim() : '';
}
