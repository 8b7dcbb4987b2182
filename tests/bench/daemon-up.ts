import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';

/** A client of the daemon of `home` that a bench spawned itself, once it answers (20 s at most). */
export async function connectWhenUp(home: string): Promise<DaemonClient> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await DaemonClient.connect(dataPaths(home), { start: false, client: { kind: 'test', name: 'bench' } });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
