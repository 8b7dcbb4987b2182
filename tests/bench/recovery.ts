/**
 * Time to recover a stranded run, with the daemon as its own process: a run is answered by the
 * model while another process holds the database's write lock (a real `BEGIN EXCLUSIVE` from a
 * second SQLite connection), so the run cannot write its step and waits, paused with the reason.
 * Measured: from the moment the lock is released to the run going on and finishing.
 * Goal: ≤ 5 s. Prints; asserts nothing.
 */
import Database from 'better-sqlite3';

import type { RunView } from '@nextai/shared';

import { type DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { exitOf, spawnDaemon } from '../support/cli.js';
import { startFakeModelServer, type ScriptedTurn } from '../support/fake-model-server.js';
import { makeHome } from '../support/home.js';
import { formatRow, summarize } from './stats.js';
import { connectWhenUp } from './daemon-up.js';

const ROUNDS = 5;
const GOAL_MS = 5000;

async function waitFor(client: DaemonClient, id: string, done: (run: RunView) => boolean): Promise<RunView> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { run } = await client.peer.request('runs.get', { id });
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${run.state}: ${JSON.stringify(run.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function benchRecovery(): Promise<string[]> {
  const home = makeHome('nx-bench-recovery-');
  // Each round: the model's answer waits until the lock is held, then the run cannot write it.
  const gates: { open: () => void; ready: Promise<void> }[] = Array.from({ length: ROUNDS }, () => {
    let open!: () => void;
    const ready = new Promise<void>((resolve) => (open = resolve));
    return { open, ready };
  });
  // The answer the run could not write is asked for again once it goes on: a second turn each round.
  const script: ScriptedTurn[] = gates.flatMap((gate, index): ScriptedTurn[] => [
    { kind: 'after', ready: gate.ready, turn: { kind: 'text', text: `Answer ${index + 1}.` } },
    { kind: 'text', text: `Answer ${index + 1}, again.` },
  ]);
  const model = await startFakeModelServer(script);
  const daemon = spawnDaemon({
    ...home.env,
    NEXTAI_LOG_LEVEL: 'warn',
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
  });
  const samples: number[] = [];
  try {
    const client = await connectWhenUp(home.dir);
    for (const gate of gates) {
      const { run } = await client.peer.request('runs.start', { goal: 'answer while the database is locked' });
      const locker = new Database(dataPaths(home.dir).database, { timeout: 10_000 });
      locker.exec('BEGIN EXCLUSIVE');
      gate.open();
      await waitFor(client, run.id, (view) => view.error?.code === 'STORAGE_ERROR');
      const released = performance.now();
      locker.exec('COMMIT');
      locker.close();
      await waitFor(client, run.id, (view) => view.state === 'finished');
      samples.push(performance.now() - released);
    }
    client.close();
    const stats = summarize(samples);
    return [
      'A run stranded by a locked database (another process holds BEGIN EXCLUSIVE while the model answers):',
      formatRow('lock released → run finished', stats) + `  max ${stats.max.toFixed(0)} ms`,
      `  goal ≤ ${GOAL_MS / 1000} s: ${stats.max <= GOAL_MS ? 'met' : 'NOT met'} (max ${(stats.max / 1000).toFixed(2)} s)`,
    ];
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await model.close();
    await home.cleanup();
  }
}
