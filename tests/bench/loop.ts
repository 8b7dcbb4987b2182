/**
 * Agent loop overhead per step, against the real daemon as its own process, with the
 * scripted fake model server answering instantly (ANTHROPIC_BASE_URL), so what is measured is the
 * loop itself: building the model request, the HTTP round trip and stream parsing, the policy
 * chokepoint and the tool, the intent/result/checkpoint writes at synchronous=FULL, the events.
 *   - a step without a screenshot: the model calls `todo_write` every turn, 200 turns in one run;
 *   - steps with a screenshot, on Xvfb 1920×1080 + openbox with a busy, changing terminal on screen:
 *     the model calls `left_click` every turn (the loop then observes with a screenshot itself,
 *     sent to the model as an image), and, separately, `screenshot` every turn; 100 turns each.
 * A step is the time between consecutive `run.step` model_call/started events as the bench
 * receives them. Its parts come from the started/finished events of the model call, the tool and
 * the observation. The model baseline is the same requests (bodies as the daemon sent them)
 * replayed from this process to the fake server: HTTP round trip plus the server's own work; the
 * loop overhead of a step is the step minus the replay of its request.
 * Goals: ≤ 20 ms a step without a screenshot, ≤ 150 ms with one (a whole step, model included,
 * should stay under 3 s).
 * Prompt caching (Anthropic): the cost per step of a 20-step run (claude-sonnet-4-5 prices),
 * with the fake server keeping a prompt cache as the API does (cache_control breakpoints; reads
 * and writes reported in the usage) and with it ignoring them, as a server without caching would.
 * Prints medians and ratios; asserts nothing. BENCH_LOOP_STEPS / BENCH_LOOP_SCREEN_STEPS change the
 * number of turns (BENCH_LOOP_SCREEN_STEPS=0 leaves the screenshot runs out); BENCH_LOOP_CPU_PROF=<dir>
 * makes each daemon write a V8 CPU profile there.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

import { ENDED_RUN_STATES, type DaemonEvent, type RunStateName } from '@nextai/shared';

import { exitOf, spawnDaemon } from '../support/cli.js';
import { startFakeModelServer, type RecordedRequest, type ScriptedTurn } from '../support/fake-model-server.js';
import { makeHome } from '../support/home.js';
import { CLI_BUNDLE } from '../support/paths.js';
import { openXterm, startXServer } from '../support/x-server.js';
import { formatRow, summarize, type Summary } from './stats.js';
import { connectWhenUp } from './daemon-up.js';

const PLAIN_STEPS = Number(process.env.BENCH_LOOP_STEPS ?? 200);
const CACHE_STEPS = 20;
const SCREEN_STEPS = Number(process.env.BENCH_LOOP_SCREEN_STEPS ?? 100);
/** First steps left out of the statistics (JIT warm-up, first connections, first screenshot). */
const WARM_UP_STEPS = 5;
const GOAL_PLAIN_MS = 20;
const GOAL_SCREEN_MS = 150;

interface ToolCallScript {
  name: string;
  input: (turn: number) => Record<string, unknown>;
}

interface LoopMeasurement {
  /** Per step (after the warm-up): model_call started → next model_call started. */
  steps: number[];
  /** Per step: the model call as the daemon reports it (started → finished event). */
  model: number[];
  /** Per step: the tool call (started → finished event). */
  tool: number[];
  /** Per step: the loop's own observation screenshot (started → finished event); 0 when none. */
  observe: number[];
  /** Per step: the step minus its model call, tool and observation — the loop's own bookkeeping. */
  rest: number[];
  /** Per step: the replay of the step's model request from this process. */
  baseline: number[];
  /** Per step: step − baseline. */
  overhead: number[];
  /** Median size of the model requests. */
  requestKiB: number;
  /** How many observations sent an image (the rest said "unchanged"). */
  observedImages: number;
  state: RunStateName;
  error: string | undefined;
  /** Daemon CPU time per step (user + system), from /proc. */
  daemonCpuMs: number;
}

export async function benchLoop(): Promise<string[]> {
  const lines = [
    `Agent loop, real daemon + fake model answering at once, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}:`,
  ];

  const plain = await measureLoop({
    steps: PLAIN_STEPS,
    call: {
      name: 'todo_write',
      input: (turn) => ({
        items: [
          { id: '1', content: 'Read the brief', status: 'completed' },
          { id: '2', content: `Work on step ${turn}`, status: 'in_progress' },
          { id: '3', content: 'Report', status: 'pending' },
        ],
      }),
    },
    env: {},
  });
  lines.push('', `Step without a screenshot (todo_write each turn, ${PLAIN_STEPS} turns in one run):`);
  lines.push(...describe(plain, GOAL_PLAIN_MS, 'without a screenshot'));

  lines.push('', ...(await benchPromptCache()));
  if (SCREEN_STEPS <= 0) return lines;

  const server = await startXServer({ width: 1920, height: 1080 });
  try {
    // A busy terminal that changes 20 times a second: every observation sees a changed screen
    // and sends the image to the model, as after a real action.
    const terminal = await openXterm(server, 'nx-bench-loop', [
      '-geometry',
      '180x50+0+0',
      '-e',
      'sh',
      '-c',
      'while :; do date +%T.%N; ls -l /usr/bin | head -n 40; sleep 0.05; done',
    ]);
    try {
      const click = await measureLoop({
        steps: SCREEN_STEPS,
        // On the empty desktop right of and below the terminal, in pixels of the latest screenshot
        // (1430×804 for this screen): nothing there reacts to a left click.
        call: { name: 'left_click', input: (turn) => ({ x: 1200 + (turn % 50), y: 700 + (turn % 20) }) },
        env: server.env,
      });
      lines.push(
        '',
        `Step with a screenshot, Xvfb 1920×1080 (left_click, then the loop's own observation; ${SCREEN_STEPS} turns):`,
      );
      lines.push(...describe(click, GOAL_SCREEN_MS, 'with a screenshot'));

      const shot = await measureLoop({
        steps: SCREEN_STEPS,
        call: { name: 'screenshot', input: () => ({}) },
        env: server.env,
      });
      lines.push('', `Step with a screenshot, Xvfb 1920×1080 (the model calls screenshot; ${SCREEN_STEPS} turns):`);
      lines.push(...describe(shot, GOAL_SCREEN_MS, 'with a screenshot'));
    } finally {
      terminal.child.kill('SIGKILL');
    }
  } finally {
    await server.stop();
  }
  return lines;
}

function describe(result: LoopMeasurement, goalMs: number, kind: string): string[] {
  if (result.state !== 'finished') {
    return [`  the run ended ${result.state}: ${result.error ?? '(no reason given)'} — no numbers`];
  }
  const step = summarize(result.steps);
  const overhead = summarize(result.overhead);
  const baseline = summarize(result.baseline);
  const parts: string[] = [
    formatRow('  step (model_call start → next model_call start)', step),
    formatRow('    part: model call, as the daemon reports it', summarize(result.model)),
    formatRow('    part: tool call through the policy chokepoint', summarize(result.tool)),
  ];
  if (result.observe.some((value) => value > 0)) {
    parts.push(formatRow('    part: the loop’s observation (screenshot)', summarize(result.observe)));
  }
  parts.push(
    formatRow('    part: the rest (intents, checkpoints, events…)', summarize(result.rest)),
    formatRow('  model baseline: its request replayed from here', baseline),
    formatRow('  loop overhead (step − its request’s baseline)', overhead),
    `  requests ${result.requestKiB.toFixed(0)} KiB at the median; daemon CPU ${result.daemonCpuMs.toFixed(1)} ms per step` +
      (result.observe.some((value) => value > 0) ? `; ${result.observedImages} observations sent an image` : ''),
    `  growth: step p50 ${quarter(result.steps, 0).toFixed(1)} ms in the first quarter, ${quarter(result.steps, 3).toFixed(1)} ms in the last`,
    `  goal ≤ ${goalMs} ms a step ${kind}: ${verdict(overhead, goalMs)}`,
  );
  return parts;
}

function verdict(summary: Summary, goalMs: number): string {
  const at = (label: string, value: number) =>
    `${value <= goalMs ? 'met' : 'NOT met'} at ${label} (${value.toFixed(1)} ms)`;
  return `${at('p50', summary.p50)}, ${at('p95', summary.p95)}`;
}

/** Median of one quarter of the samples, in order: does a step get slower as the run grows? */
function quarter(samples: readonly number[], index: number): number {
  const size = Math.max(1, Math.floor(samples.length / 4));
  return summarize(samples.slice(index * size, (index + 1) * size)).p50;
}

/** One run of `steps` turns calling `call`, then the model's final answer. */
async function measureLoop(options: {
  steps: number;
  call: ToolCallScript;
  env: NodeJS.ProcessEnv;
}): Promise<LoopMeasurement> {
  let turn = 0;
  let replaying = false;
  const answer = (request: RecordedRequest): ScriptedTurn => {
    const body = request.body as { tools?: unknown[] };
    // A request without tools folds old turns into a summary (not expected at these sizes).
    if (!Array.isArray(body.tools) || body.tools.length === 0) return { kind: 'text', text: 'Summary: working.' };
    if (replaying) return { kind: 'tool_calls', calls: [{ name: options.call.name, input: options.call.input(0) }] };
    turn += 1;
    if (turn > options.steps) return { kind: 'text', text: 'Done.' };
    return { kind: 'tool_calls', calls: [{ name: options.call.name, input: options.call.input(turn) }] };
  };
  const model = await startFakeModelServer(answer);
  const home = makeHome('nx-bench-loop-');
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    ...options.env,
    NEXTAI_HOME: home.dir,
    NEXTAI_LOG_LEVEL: 'warn',
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'bench',
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  // BENCH_LOOP_CPU_PROF=<dir>: the daemon writes a V8 CPU profile there when it exits.
  const profileDir = process.env.BENCH_LOOP_CPU_PROF;
  const daemon = profileDir
    ? spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, CLI_BUNDLE, 'daemon'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawnDaemon(env);
  let daemonErrors = '';
  daemon.stderr?.on('data', (chunk: Buffer) => (daemonErrors = (daemonErrors + chunk.toString()).slice(-4000)));
  daemon.stdout?.resume();
  try {
    const client = await connectWhenUp(home.dir);
    const received: { at: number; event: DaemonEvent }[] = [];
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    client.peer.onNotification('event', (event) => {
      received.push({ at: performance.now(), event });
      if (event.type === 'run.state' && ENDED_RUN_STATES.includes(event.data.state as RunStateName)) markEnded();
    });
    await client.peer.request('events.subscribe', {});
    const cpuBefore = cpuMsOf(daemon.pid as number);
    const { run } = await client.peer.request('runs.start', {
      goal: 'Benchmark the agent loop: call the tool you are told to, every turn.',
      limits: { max_steps: options.steps + 10, max_tokens: 1_000_000_000, max_cost_usd: 1_000_000 },
    });
    const timeout = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), 60_000 + options.steps * 3000).unref(),
    );
    let stalled: string | undefined;
    if ((await Promise.race([ended.then(() => 'ended' as const), timeout])) === 'timeout') {
      const { run: stuck } = await client.peer.request('runs.get', { id: run.id });
      const last = received.at(-1)?.event;
      stalled = `timed out while ${stuck.state} (question: ${stuck.question?.question ?? 'none'}; approvals: ${stuck.approvals.join(', ') || 'none'}; last event: ${JSON.stringify(last)})`;
      await client.peer.request('runs.stop', { id: run.id, reason: 'bench time-out' });
    }
    const daemonCpu = cpuMsOf(daemon.pid as number) - cpuBefore;
    const { run: final } = await client.peer.request('runs.get', { id: run.id });

    const mine = received.filter(({ event }) => event.data.run_id === run.id);
    const stepEvents = mine.filter(({ event }) => event.type === 'run.step');
    const phase = (kind: string, which: 'started' | 'finished') =>
      stepEvents.filter(({ event }) => event.data.kind === kind && event.data.phase === which);
    const spans = (kind: string) => {
      const finished = new Map(phase(kind, 'finished').map(({ at, event }) => [event.data.step as number, at]));
      return phase(kind, 'started').map(({ at, event }) => ({
        start: at,
        end: finished.get(event.data.step as number) ?? at,
      }));
    };
    const modelSpans = spans('model_call');
    const toolSpans = spans('tool_call');
    const observeSpans = spans('observe');
    const within = (list: { start: number; end: number }[], from: number, to: number) =>
      list
        .filter((span) => span.start >= from && span.start < to)
        .reduce((sum, span) => sum + span.end - span.start, 0);

    // The model requests of the loop, in order (the i-th starts step i).
    const loopRequests = model.requests.filter(
      (request) => Array.isArray(request.body?.tools) && request.body.tools.length > 0,
    );
    const bodies = loopRequests.map((request) => JSON.stringify(request.body));
    replaying = true;
    const replays = await replay(model.anthropicBaseUrl, bodies);

    const result: LoopMeasurement = {
      steps: [],
      model: [],
      tool: [],
      observe: [],
      rest: [],
      baseline: [],
      overhead: [],
      requestKiB: summarize(bodies.map((body) => body.length / 1024)).p50,
      observedImages: phase('observe', 'finished').filter(({ event }) => event.data.summary !== 'screen unchanged')
        .length,
      state: final.state,
      error: stalled ?? final.error?.message,
      daemonCpuMs: daemonCpu / Math.max(1, modelSpans.length - 1),
    };
    for (let i = WARM_UP_STEPS; i + 1 < modelSpans.length; i++) {
      const from = modelSpans[i]!.start;
      const to = modelSpans[i + 1]!.start;
      const step = to - from;
      const modelMs = modelSpans[i]!.end - from;
      const toolMs = within(toolSpans, from, to);
      const observeMs = within(observeSpans, from, to);
      result.steps.push(step);
      result.model.push(modelMs);
      result.tool.push(toolMs);
      result.observe.push(observeMs);
      result.rest.push(step - modelMs - toolMs - observeMs);
      const baseline = replays[i] ?? Number.NaN;
      result.baseline.push(baseline);
      result.overhead.push(step - baseline);
    }
    client.close();
    if (final.state !== 'finished' && daemonErrors !== '') result.error = `${result.error ?? ''}\n${daemonErrors}`;
    return result;
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup();
    await model.close();
  }
}

interface CacheRun {
  state: RunStateName;
  error: string | undefined;
  turns: number;
  costUsd: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Cost of each model call, in order (from the steps' results). */
  perCall: number[];
}

/**
 * The cost of a 20-step run with and without Anthropic prompt caching: the same daemon, the same
 * todo_write turns, the fake server keeping a prompt cache or not.
 */
async function benchPromptCache(): Promise<string[]> {
  const cached = await runForCost(true);
  const uncached = await runForCost(false);
  const lines = [
    `Prompt caching, a ${CACHE_STEPS}-step run (todo_write each turn; claude-sonnet-4-5 prices: input $3, cache read $0.30, cache write $3.75, output $15 a million):`,
  ];
  for (const [label, run] of [
    ['without caching', uncached],
    ['with caching   ', cached],
  ] as const) {
    if (run.state !== 'finished') {
      lines.push(`  ${label}: the run ended ${run.state}: ${run.error ?? '(no reason given)'} — no numbers`);
      continue;
    }
    const steps = Math.max(1, run.perCall.length);
    lines.push(
      `  ${label}: $${(run.costUsd / steps).toFixed(5)} a step ($${run.costUsd.toFixed(4)} for ${steps} model calls); ` +
        `input ${Math.round(run.input / steps)} tokens a step, of them cache read ${Math.round(run.cacheRead / steps)}, ` +
        `written ${Math.round(run.cacheWrite / steps)}; output ${Math.round(run.output / steps)}`,
    );
    const last = run.perCall.slice(-5);
    lines.push(
      `    per call: first $${(run.perCall[0] ?? 0).toFixed(5)}, last five ${last.map((cost) => `$${cost.toFixed(5)}`).join(' ')}`,
    );
  }
  if (cached.state === 'finished' && uncached.state === 'finished' && uncached.costUsd > 0) {
    lines.push(
      `  caching costs ${((100 * cached.costUsd) / uncached.costUsd).toFixed(0)} % of not caching over the run ` +
        `(${(uncached.costUsd / Math.max(cached.costUsd, 1e-12)).toFixed(1)}× cheaper)`,
    );
  }
  return lines;
}

async function runForCost(promptCache: boolean): Promise<CacheRun> {
  let turn = 0;
  const answer = (request: RecordedRequest): ScriptedTurn => {
    const body = request.body as { tools?: unknown[] };
    if (!Array.isArray(body.tools) || body.tools.length === 0) return { kind: 'text', text: 'Summary: working.' };
    turn += 1;
    if (turn > CACHE_STEPS) return { kind: 'text', text: 'Done.' };
    return {
      kind: 'tool_calls',
      text: `Step ${turn}: updating the plan.`,
      calls: [
        {
          name: 'todo_write',
          input: {
            items: [
              { id: '1', content: 'Read the brief', status: 'completed' },
              { id: '2', content: `Work on step ${turn}`, status: 'in_progress' },
            ],
          },
        },
      ],
    };
  };
  const model = await startFakeModelServer(answer, { promptCache });
  const home = makeHome('nx-bench-cache-');
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    NEXTAI_HOME: home.dir,
    NEXTAI_LOG_LEVEL: 'warn',
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'bench',
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const daemon = spawnDaemon(env);
  daemon.stdout?.resume();
  daemon.stderr?.resume();
  try {
    const client = await connectWhenUp(home.dir);
    const { run } = await client.peer.request('runs.start', {
      goal: 'Benchmark prompt caching: update the plan with todo_write every turn, as told.',
      limits: { max_steps: CACHE_STEPS + 10, max_tokens: 1_000_000_000, max_cost_usd: 1_000_000 },
    });
    const deadline = Date.now() + 120_000;
    let final = (await client.peer.request('runs.get', { id: run.id })).run;
    while (!ENDED_RUN_STATES.includes(final.state) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      final = (await client.peer.request('runs.get', { id: run.id })).run;
    }
    const { steps } = await client.peer.request('runs.get', { id: run.id, steps: true });
    client.close();
    return {
      state: final.state,
      error: final.error?.message,
      turns: final.turns,
      costUsd: final.usage.cost_usd,
      input: final.usage.input_tokens,
      output: final.usage.output_tokens,
      cacheRead: final.usage.cache_read_tokens ?? 0,
      cacheWrite: final.usage.cache_write_tokens ?? 0,
      perCall: (steps ?? [])
        .filter((step) => step.kind === 'model_call' && (step.result as { ok?: boolean } | null)?.ok === true)
        .map((step) => Number((step.result as { cost_usd?: number }).cost_usd ?? 0)),
    };
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup();
    await model.close();
  }
}

/** Each body POSTed once more to the fake server from this process, over a kept-alive connection as the daemon's fetch does. */
async function replay(baseUrl: string, bodies: string[]): Promise<number[]> {
  const post = async (body: string) => {
    const response = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01' },
      body,
    });
    await response.text();
  };
  for (const body of bodies.slice(0, WARM_UP_STEPS)) await post(body);
  const samples: number[] = [];
  for (const body of bodies) {
    const start = performance.now();
    await post(body);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** User + system CPU time of a process so far, in ms, from /proc/<pid>/stat. */
function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // clock ticks are 1/100 s on Linux (USER_HZ)
  } catch {
    return Number.NaN;
  }
}
