/**
 * The emergency stop with a browser call in flight, through the whole path a person's browser
 * takes: the daemon, the native-messaging bridge, the extension's background and the tab. Each
 * round starts a browser_navigate to a page that never finishes loading, then engages the stop:
 *   - until the call is answered (the daemon's side: the gateway withdraws it);
 *   - until the tab has stopped loading the page (the extension's side: the withdrawal reached it
 *     and the page's load was stopped), seen as the fixture server's connection closing.
 * Goal: p99 ≤ 200 ms for both. Prints them; asserts nothing.
 */
import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { writeFixtureHostsConfig } from '../support/browser-tasks.js';
import { launchWithExtension, makeProfileDir } from '../support/chromium.js';
import { runCli } from '../support/cli.js';
import { startFixtureSite } from '../support/fixture-site.js';
import { makeHome } from '../support/home.js';
import { formatRow, summarize } from './stats.js';

const ROUNDS = Number(process.env.BENCH_BROWSER_STOP_ROUNDS ?? 20);

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function benchStopWithBrowserCall(): Promise<string[]> {
  const site = await startFixtureSite();
  const home = makeHome('nx-bench-bstop-');
  writeFixtureHostsConfig(home.dir);
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  if (installed.code !== 0) throw new Error(`Could not register the host: ${installed.stderr}`);
  const browser = await launchWithExtension(profile, home.env);
  const answered: number[] = [];
  const pageStopped: number[] = [];
  let client: DaemonClient | undefined;
  try {
    await until(async () => {
      const status = await runCli(['status', '--json'], home.env);
      return status.code === 0 && /"kind":\s*"extension"/.test(status.stdout);
    }, 'the extension to connect');
    client = await DaemonClient.connect(dataPaths(home.dir), { start: false, client: { kind: 'test', name: 'bench' } });
    for (let round = 0; round < ROUNDS; round++) {
      const before = site.neverLoads();
      const call = client.peer.request(
        'tools.call',
        { name: 'browser_navigate', input: { url: site.url(`never?round=${round}`), timeout: 60_000 } },
        { timeoutMs: 90_000 },
      );
      await until(() => site.neverLoads().open > before.open, 'the page to start loading');
      const start = performance.now();
      const stopped = client.peer.request('safety.stop', { reason: 'bench' });
      await call;
      answered.push(performance.now() - start);
      await until(
        () => site.neverLoads().abandoned > before.abandoned,
        `the tab to stop loading (round ${round})`,
        10_000,
      );
      pageStopped.push(performance.now() - start);
      await stopped;
      await client.peer.request('safety.reset', {});
    }
  } finally {
    client?.close();
    await browser.close();
    await home.cleanup();
    await site.close();
  }
  const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.ceil(0.99 * samples.length) - 1]!;
  return [
    'The emergency stop with a browser call in flight (extension in Chromium, a page that never loads):',
    formatRow('  until the call is answered', summarize(answered)),
    formatRow('  until the tab stopped loading the page', summarize(pageStopped)),
    `goal p99 ≤ 200 ms: answered p99 ${p99(answered).toFixed(1)} ms, tab stopped p99 ${p99(pageStopped).toFixed(1)} ms ` +
      `(${Math.max(p99(answered), p99(pageStopped)) <= 200 ? 'met' : 'NOT met'})`,
  ];
}
