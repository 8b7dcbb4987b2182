/**
 * The daemon as a separate process on a real X server (Xvfb 1920×1080 + openbox): its resident
 * memory idle and after 100 screenshots, and screenshots through the whole path (socket, policy,
 * audit, handler; large images fetched back with `blobs.read` as a client would).
 * Goals: idle RSS ≤ 120 MB, after 100 screenshots ≤ 300 MB. Prints; asserts nothing.
 */
import fs from 'node:fs';

import { exitOf, spawnDaemon } from '../support/cli.js';
import { makeHome } from '../support/home.js';
import { startXServer } from '../support/x-server.js';
import { formatRow, summarize } from './stats.js';
import { connectWhenUp } from './daemon-up.js';

const SCREENSHOTS = 100;

/** Resident set size of a process in MB, from /proc. */
function rssMegabytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/^VmRSS:\s+(\d+)\s+kB/mu.exec(status)?.[1]);
  return kilobytes / 1024;
}

export async function benchDaemonMemory(): Promise<string[]> {
  const server = await startXServer({ width: 1920, height: 1080 });
  const home = makeHome('nx-bench-mem-');
  const daemon = spawnDaemon({ ...home.env, ...server.env, NEXTAI_HOME: home.dir, NEXTAI_LOG_LEVEL: 'warn' });
  try {
    const client = await connectWhenUp(home.dir);
    const pid = daemon.pid as number;
    // Let start-up garbage settle before the idle reading.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = rssMegabytes(pid);
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCREENSHOTS; i++) {
      const start = performance.now();
      const result = await client.peer.request('tools.call', { name: 'screenshot', input: {} });
      if (!result.ok) throw new Error(`screenshot failed: ${result.error.message}`);
      const image = (result.output as { image: string }).image;
      if (image.startsWith('blob:')) {
        let offset: number | null = 0;
        while (offset !== null) {
          const slice: { data: string; next_offset: number | null } = await client.peer.request('blobs.read', {
            reference: image,
            offset,
            length: 512 * 1024,
          });
          bytes += slice.data.length;
          offset = slice.next_offset;
        }
      } else {
        bytes += image.length;
      }
      samples.push(performance.now() - start);
    }
    const after = rssMegabytes(pid);
    client.close();
    return [
      'Daemon on a real X server (1920×1080), as its own process:',
      formatRow('screenshot through the daemon (socket, policy, audit)', summarize(samples)),
      `average image on the wire: ${(bytes / SCREENSHOTS / 1024).toFixed(0)} KiB of base64`,
      `resident memory idle: ${idle.toFixed(0)} MB (goal ≤ 120 MB: ${idle <= 120 ? 'met' : 'NOT met'})`,
      `resident memory after ${SCREENSHOTS} screenshots: ${after.toFixed(0)} MB (goal ≤ 300 MB: ${after <= 300 ? 'met' : 'NOT met'})`,
    ];
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup();
    await server.stop();
  }
}
