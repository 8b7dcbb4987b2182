import { DaemonClient } from '../client/daemon-client.js';
import { dataPaths } from '../core/paths.js';

/** Connects to the daemon (starting it unless it was stopped on purpose), runs `body`, closes. */
export async function withDaemon<T>(
  body: (client: DaemonClient) => Promise<T>,
  options: { start?: boolean } = {},
): Promise<T> {
  const client = await DaemonClient.connect(dataPaths(), { start: options.start ?? true });
  if (client.startedDaemon) process.stderr.write(`nextai: started the daemon for ${client.daemon.data_dir}\n`);
  try {
    return await body(client);
  } finally {
    client.close();
  }
}
