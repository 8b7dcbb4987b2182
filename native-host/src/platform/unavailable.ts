import { AppError } from '@nextai/shared';

/**
 * An adapter part that this platform does not have (yet): every method throws UNAVAILABLE with
 * `message`, so the tool reports it and the daemon keeps running.
 */
export function unavailableAdapter<T extends object>(message: string): T {
  return new Proxy({} as T, {
    get: (_target, property) => {
      if (property === 'then') return undefined; // not a thenable
      return () => Promise.reject(new AppError('UNAVAILABLE', message));
    },
  });
}
