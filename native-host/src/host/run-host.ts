import { ensureDaemon } from '../client/daemon-launcher.js';
import { lockHolder } from '../client/daemon-lock.js';
import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import { Bridge } from './bridge.js';

/** `nextai host <caller…>`: bridges the browser's native-messaging pipes to the daemon. */
export async function runHost(callerArgs: string[]): Promise<number> {
  const paths = dataPaths();
  // stdout carries protocol frames only; logs go to a file.
  const log = createLogger({ component: `host:${process.pid}`, file: paths.hostLog, stderr: false });
  const bridge = new Bridge({
    stdin: process.stdin,
    stdout: process.stdout,
    callerArgs,
    connectDaemon: async () => (await ensureDaemon(paths, { start: true, log })).socket,
    daemonRunning: () => lockHolder(paths).held,
    log,
  });
  bridge.start();
  return bridge.done;
}
