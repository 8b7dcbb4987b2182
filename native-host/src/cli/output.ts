import type { AppError } from '@nextai/shared';

import { EXIT } from './exit-codes.js';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function printError(message: string): void {
  process.stderr.write(`nextai: ${message}\n`);
}

export function exitCodeFor(error: AppError): number {
  switch (error.code) {
    case 'INVALID_ARGUMENT':
    case 'UNKNOWN_TOOL':
    case 'INVALID_PARAMS':
      return EXIT.USAGE;
    case 'DAEMON_UNAVAILABLE':
      return EXIT.DAEMON_UNAVAILABLE;
    case 'DAEMON_ALREADY_RUNNING':
      return EXIT.ALREADY_RUNNING;
    default:
      return EXIT.FAILURE;
  }
}
