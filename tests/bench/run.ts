/**
 * `npm run bench`: round trips of one small request (`daemon.ping`) from the extension's
 * background, measured inside the service worker of a real Chromium:
 *   - over the persistent native-messaging port (the product's path), 1000 requests;
 *   - over a fresh `sendNativeMessage` each time (a new host process per request), the baseline;
 *   - for reference, straight over the daemon socket from Node, without browser or bridge.
 * Goal: p50 ≤ 5 ms on the persistent path. Prints medians and ratios; asserts nothing.
 */
import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir } from '../support/chromium.js';
import { makeHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { benchBrowser } from './browser.js';
import { benchStopWithBrowserCall } from './browser-stop.js';
import { benchDaemonMemory } from './desktop-daemon.js';
import { benchDiskFull } from './disk-full.js';
import { benchFaults } from './faults.js';
import { benchRecovery } from './recovery.js';
import { benchInput } from './desktop-input.js';
import { benchLoop } from './loop.js';
import { benchScreen } from './desktop-screen.js';
import { benchSchedule } from './schedule.js';
import { benchAudit, benchDecision, benchEmergencyStop, benchPathCheck, benchStopDuringQuickCalls } from './safety.js';
import { benchSandbox } from './sandbox.js';
import { formatRow, summarize } from './stats.js';

const PERSISTENT_REQUESTS = 1000;
const ONE_SHOT_REQUESTS = Number(process.env.BENCH_ONE_SHOT ?? 200);
const SOCKET_REQUESTS = 1000;
const WARM_UP = 50;

interface BackgroundGlobals {
  nextaiBackground: {
    connection: {
      current: { status: string };
      request(method: string, params: object): Promise<unknown>;
    };
  };
  chrome: { runtime: { sendNativeMessage(host: string, message: object): Promise<unknown> } };
}

/** `npm run bench -- desktop safety sandbox` runs only the sections named; all of them by default. */
const SECTIONS = ['messaging', 'safety', 'sandbox', 'desktop', 'loop', 'schedule', 'browser', 'faults'] as const;
const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
for (const name of asked) {
  if (!(SECTIONS as readonly string[]).includes(name))
    throw new Error(`Unknown bench section "${name}": ${SECTIONS.join(', ')}`);
}
const wanted = (section: (typeof SECTIONS)[number]) => asked.length === 0 || asked.includes(section);

async function main(): Promise<void> {
  requireBuilt(CLI_BUNDLE);
  if (wanted('messaging')) await benchMessaging();
  if (wanted('safety')) {
    const safety = [
      'Safety: the policy, the audit log and the emergency stop with the real daemon parts:',
      ...(await benchDecision()),
      ...(await benchPathCheck()),
      ...(await benchAudit()),
      ...(await benchEmergencyStop()),
      ...(await benchStopDuringQuickCalls()),
      '',
    ];
    process.stdout.write(`${safety.join('\n')}\n`);
  }
  if (wanted('sandbox')) process.stdout.write(`${(await benchSandbox()).join('\n')}\n\n`);
  if (wanted('desktop')) {
    // Each desktop bench starts its own Xvfb + openbox; one after another so they do not compete.
    const desktop = [
      'Desktop tools, on a real X server:',
      ...(await benchScreen()),
      '',
      ...(await benchInput()),
      '',
      ...(await benchDaemonMemory()),
      '',
    ];
    process.stdout.write(`${desktop.join('\n')}\n`);
  }
  if (wanted('loop')) process.stdout.write(`${[...(await benchLoop()), ''].join('\n')}\n`);
  if (wanted('schedule')) process.stdout.write(`${[...(await benchSchedule()), ''].join('\n')}\n`);
  if (wanted('browser')) {
    process.stdout.write(`${[...(await benchBrowser()), ''].join('\n')}\n`);
    process.stdout.write(`${[...(await benchStopWithBrowserCall()), ''].join('\n')}\n`);
  }
  if (wanted('faults')) {
    process.stdout.write(`${[...(await benchFaults()), ''].join('\n')}\n`);
    process.stdout.write(`${[...(await benchRecovery()), ''].join('\n')}\n`);
    process.stdout.write(`${[...(await benchDiskFull()), ''].join('\n')}\n`);
  }
}

async function benchMessaging(): Promise<void> {
  const home = makeHome('nx-bench-');
  const profile = makeProfileDir();
  const install = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  if (install.code !== 0) throw new Error(`install failed: ${install.stderr}`);
  const browser = await launchWithExtension(profile, home.env);
  try {
    const worker = browser.serviceWorker;
    await worker.evaluate(async () => {
      const globals = globalThis as unknown as BackgroundGlobals;
      const deadline = Date.now() + 20_000;
      while (globals.nextaiBackground.connection.current.status !== 'connected') {
        if (Date.now() > deadline) throw new Error('The extension did not connect to the host.');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    const persistent = await worker.evaluate(
      async ({ count, warmUp }) => {
        const { connection } = (globalThis as unknown as BackgroundGlobals).nextaiBackground;
        for (let i = 0; i < warmUp; i++) await connection.request('daemon.ping', {});
        const samples: number[] = [];
        for (let i = 0; i < count; i++) {
          const start = performance.now();
          await connection.request('daemon.ping', {});
          samples.push(performance.now() - start);
        }
        return samples;
      },
      { count: PERSISTENT_REQUESTS, warmUp: WARM_UP },
    );

    const oneShot = await worker.evaluate(
      async ({ count }) => {
        const { chrome } = globalThis as unknown as BackgroundGlobals;
        const message = { jsonrpc: '2.0', id: 1, method: 'daemon.ping', params: {} };
        await chrome.runtime.sendNativeMessage('com.nextai.agent', message);
        const samples: number[] = [];
        for (let i = 0; i < count; i++) {
          const start = performance.now();
          const answer = (await chrome.runtime.sendNativeMessage('com.nextai.agent', message)) as { result?: unknown };
          if (!answer.result) throw new Error(`Unexpected answer: ${JSON.stringify(answer)}`);
          samples.push(performance.now() - start);
        }
        return samples;
      },
      { count: ONE_SHOT_REQUESTS },
    );

    const client = await DaemonClient.connect(dataPaths(home.dir), {
      start: false,
      client: { kind: 'test', name: 'bench' },
    });
    const socketSamples: number[] = [];
    for (let i = 0; i < WARM_UP; i++) await client.peer.request('daemon.ping', {});
    for (let i = 0; i < SOCKET_REQUESTS; i++) {
      const start = performance.now();
      await client.peer.request('daemon.ping', {});
      socketSamples.push(performance.now() - start);
    }
    client.close();

    const persistentSummary = summarize(persistent);
    const oneShotSummary = summarize(oneShot);
    const socketSummary = summarize(socketSamples);
    const lines = [
      '',
      'Round trip of daemon.ping from the extension background (Chromium, headless):',
      formatRow('persistent port (background → host → daemon → back)', persistentSummary),
      formatRow('fresh sendNativeMessage each time (baseline)', oneShotSummary),
      formatRow('daemon socket only, from Node (reference)', socketSummary),
      '',
      `persistent port vs one-shot: ${(oneShotSummary.p50 / persistentSummary.p50).toFixed(1)}× faster at p50`,
      `bridge + browser cost over the bare socket: ${(persistentSummary.p50 - socketSummary.p50).toFixed(2)} ms at p50`,
      `goal p50 ≤ 5 ms on the persistent path: ${persistentSummary.p50 <= 5 ? 'met' : 'NOT met'} (${persistentSummary.p50.toFixed(2)} ms)`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await browser.close();
    await home.cleanup();
  }
}

await main();
