import { flushLogs, type Logger } from '../core/logger.js';

/**
 * Logs a promise rejection nothing handled, with its stack, and keeps the daemon running.
 *
 * Node's default for one is to end the process — and with it every run, schedule, approval wait
 * and terminal in progress — over what is usually a missing `catch` on a side path (a
 * notification, a best-effort write). It is a bug all the same, so it is not hidden: it is logged
 * at error level with the stack, where `nextai doctor` and a person reading logs/daemon.log see it.
 *
 * Exceptions thrown synchronously (`uncaughtException`) still end the process: the code that threw
 * stopped halfway and its state is unknown, so going on could do harm; the service manager (or the
 * next client) starts the daemon again, and it resumes from what is on disk.
 */
export function logUnhandledRejections(log: Logger): () => void {
  const onRejection = (reason: unknown) => {
    log.error('a promise was rejected and nothing handled it (a bug); the daemon keeps running', {
      error: reason instanceof Error ? reason.message : String(reason),
      stack: reason instanceof Error ? reason.stack : undefined,
    });
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}

/**
 * Logs the exception that is about to end the daemon (see {@link logUnhandledRejections} for why it
 * still ends it), with its stack, and writes the log out at once: the daemon's log file is written
 * asynchronously, and these are the lines that say why it died. Node's own report still goes to
 * stderr, and the process ends as it would have.
 */
export function logUncaughtExceptions(log: Logger): () => void {
  const onException = (error: unknown, origin: string) => {
    log.error('an exception nothing caught ends the daemon (a bug)', {
      error: error instanceof Error ? error.message : String(error),
      origin,
      stack: error instanceof Error ? error.stack : undefined,
    });
    flushLogs();
  };
  process.on('uncaughtExceptionMonitor', onException);
  return () => process.off('uncaughtExceptionMonitor', onException);
}
