/**
 * One client's flood against another client's ping, with the daemon as its own process: a second
 * process keeps sending 20 000 requests at once over one connection (each batch again when all of
 * the last are answered), while this one sends a `daemon.ping` every 5 ms over its own, for 5 s,
 * each timed on its own. Floods of `daemon.ping` and of `tools.call`.
 * Baseline: pings one after another with nobody flooding.
 * Goal: the ping's p99 ≤ 100 ms under the flood. Prints; asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

import { type DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { exitOf, spawnDaemon } from '../support/cli.js';
import { makeHome } from '../support/home.js';
import { formatRow, summarize } from './stats.js';
import { connectWhenUp } from './daemon-up.js';

const FLOOD = 20_000;
const PINGS = 500;
/** How long the pings go on under each flood, one every PING_EVERY_MS. */
const FLOODED_MS = 5000;
const PING_EVERY_MS = 5;

/**
 * The flooding client, as its own process (so that reading its answers does not slow the pings
 * measured here): frames of `method` written in batches of FLOOD over one connection; prints how
 * its requests were answered when it gets SIGTERM.
 */
const FLOODER = `
const net = require('node:net');
const [socketPath, method, params, count] = process.argv.slice(1);
const frame = (message) => {
  const payload = Buffer.from(JSON.stringify(message));
  const header = Buffer.alloc(4);
  header.writeUInt32LE(payload.length, 0);
  return Buffer.concat([header, payload]);
};
const tally = { answered: 0, busy: 0, errors: {}, batches: 0 };
let id = 0;
let outstanding = 0;
const socket = net.connect(socketPath, () => send());
function send() {
  const frames = [];
  for (let i = 0; i < Number(count); i++) frames.push(frame({ jsonrpc: '2.0', id: ++id, method, params: JSON.parse(params) }));
  outstanding += Number(count);
  tally.batches++;
  socket.write(Buffer.concat(frames));
}
let buffer = Buffer.alloc(0);
socket.on('data', (chunk) => {
  buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
  let offset = 0;
  while (buffer.length - offset >= 4) {
    const length = buffer.readUInt32LE(offset);
    if (buffer.length - offset < 4 + length) break;
    const message = JSON.parse(buffer.toString('utf8', offset + 4, offset + 4 + length));
    offset += 4 + length;
    const code = message.error && ((message.error.data && message.error.data.code) || String(message.error.code));
    if (code === 'BUSY') tally.busy++;
    else if (code) tally.errors[code] = (tally.errors[code] || 0) + 1;
    else tally.answered++;
    if (--outstanding === 0) send();
  }
  buffer = buffer.subarray(offset);
});
socket.on('error', () => undefined);
process.stdout.write('ready\\n');
process.on('SIGTERM', () => {
  process.stdout.write(JSON.stringify(tally) + '\\n');
  process.exit(0);
});
`;

interface Tally {
  answered: number;
  busy: number;
  /** Other refusals by code (a tool call from a client that is not the person: NOT_THE_PERSON). */
  errors: Record<string, number>;
  batches: number;
}

/** Pings one after another, `count` of them. */
async function pingTimes(client: DaemonClient, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await client.peer.request('daemon.ping', {});
    samples.push(performance.now() - start);
  }
  return samples;
}

/**
 * A ping every `everyMs` for `forMs`, each timed on its own whether the last was answered or not:
 * a daemon that stalls for 10 s shows as the thousand pings it kept waiting, not as one slow one.
 */
async function pingsPaced(client: DaemonClient, everyMs: number, forMs: number): Promise<number[]> {
  const pings: Promise<number>[] = [];
  const until = performance.now() + forMs;
  while (performance.now() < until) {
    const start = performance.now();
    pings.push(client.peer.request('daemon.ping', {}, { timeoutMs: 120_000 }).then(() => performance.now() - start));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Promise.all(pings);
}

function startFlood(socketPath: string, method: string, params: object): ChildProcess {
  return spawn(process.execPath, ['-e', FLOODER, socketPath, method, JSON.stringify(params), String(FLOOD)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function stopFlood(flooder: ChildProcess): Promise<Tally> {
  let output = '';
  flooder.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  flooder.kill('SIGTERM');
  await exitOf(flooder);
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Tally;
}

export async function benchFaults(): Promise<string[]> {
  const home = makeHome('nx-bench-faults-');
  const daemon = spawnDaemon({ ...home.env, NEXTAI_LOG_LEVEL: 'warn' });
  const lines = [`One client floods the daemon (${FLOOD} requests at once, again and again) while another pings:`];
  try {
    const client = await connectWhenUp(home.dir);
    await pingTimes(client, 50);
    const idle = summarize(await pingTimes(client, PINGS));
    lines.push(
      formatRow('daemon.ping, nobody flooding (baseline)', idle) +
        `  p99 ${idle.p99.toFixed(2)} ms  max ${idle.max.toFixed(2)} ms`,
    );
    const floods: [string, string, object][] = [
      ['daemon.ping', 'daemon.ping', {}],
      ['tools.call system_info', 'tools.call', { name: 'system_info', input: { categories: ['os'] } }],
    ];
    for (const [label, method, params] of floods) {
      const flooder = startFlood(dataPaths(home.dir).socket, method, params);
      await once(flooder.stdout!, 'data');
      // Let the first batch land before measuring.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const flooded = summarize(await pingsPaced(client, PING_EVERY_MS, FLOODED_MS));
      const tally = await stopFlood(flooder);
      lines.push(
        formatRow(`daemon.ping while ${label} floods`, flooded) +
          `  p99 ${flooded.p99.toFixed(2)} ms  max ${flooded.max.toFixed(2)} ms`,
        `  the flood: ${tally.batches} batches; ${tally.answered} answered, ${tally.busy} refused BUSY` +
          Object.entries(tally.errors)
            .map(([code, count]) => `, ${count} answered ${code}`)
            .join(''),
        `  goal p99 ≤ 100 ms: ${flooded.p99 <= 100 ? 'met' : 'NOT met'} (${flooded.p99.toFixed(2)} ms)`,
      );
    }
    client.close();
    return lines;
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup();
  }
}
