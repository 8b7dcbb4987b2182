import { AppError } from '@nextai/shared';

/** Parses a JSON object given on the command line, with messages that say what to fix. */
export function parseJsonObject(raw: string | undefined, what: string): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new AppError('INVALID_ARGUMENT', `The ${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('INVALID_ARGUMENT', `The ${what} must be a JSON object, e.g. '{"categories":["cpu"]}'.`);
  }
  return value as Record<string, unknown>;
}
