/**
 * Safety benchmarks, run in-process with the real daemon parts:
 *   - the policy decision for a typical shell command (input analysis with the bash grammar and
 *     the guards, then decide()), p50 — goal ≤ 1 ms;
 *   - the audit log: one append with its anchor rewrite, p50 — goal ≤ 2 ms; verifying a chain of
 *     10 000 rows — goal ≤ 3 s;
 *   - emergency-stop latency with 8 tool calls in flight, each a `sleep` in its own terminal
 *     session (the real bash_execute), from the stop request until every call has ended,
 *     p50/p99 — goal p99 ≤ 200 ms;
 *   - the same stop sent while a run works through a turn of 300 quick tool calls (to-do updates
 *     that never wait on anything outside the daemon), until the stop is answered, p50/p99.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { TEMPLATES, getTool, policyConfigSchema } from '@nextai/shared';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { AuditLog } from '../../native-host/src/gateway/audit/index.js';
import { openDatabase } from '../../native-host/src/storage/database.js';
import { createLogger } from '../../native-host/src/core/logger.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { currentPlatform } from '../../native-host/src/core/current-platform.js';
import { assessEnvFactory } from '../../native-host/src/policy/assess-env.js';
import { assessInput } from '../../native-host/src/policy/assess.js';
import { decide } from '../../native-host/src/policy/decide.js';
import { FileGuard } from '../../native-host/src/policy/guards/file-guard.js';
import { requiredLevel } from '../../native-host/src/policy/permission-levels.js';
import { initShellAnalyzer } from '../../native-host/src/policy/shell/index.js';
import { runCli } from '../support/cli.js';
import { planningTurns, startFakeModelServer } from '../support/fake-model-server.js';
import { makeHome } from '../support/home.js';
import { formatRow, summarize } from './stats.js';

const DECISIONS = 3000;
const STOP_ROUNDS = 30;
const IN_FLIGHT = 8;
const BUSY_RUN_ROUNDS = 10;
const QUICK_CALLS = 300;

export async function benchDecision(): Promise<string[]> {
  await initShellAnalyzer();
  const security = policyConfigSchema.parse({}).security;
  const env = assessEnvFactory(currentPlatform(), os.homedir(), [path.join(os.tmpdir(), 'nextai-bench-protected')])(
    security,
  );
  const tool = getTool('bash_execute');
  const commands = ['git status && npm test', 'git commit -m "fix: thing" && npm test -- --reporter=dot | tee out.log'];
  const lines: string[] = [];
  let worstP50 = 0;
  for (const command of commands) {
    const input = { command, timeout: 120_000 };
    const samples: number[] = [];
    for (let i = 0; i < DECISIONS; i++) {
      const start = performance.now();
      const assessment = assessInput(tool, input, env);
      decide({
        tool,
        analysis: assessment.analysis,
        guards: assessment.guards,
        requiredLevel: requiredLevel(tool, input, assessment.analysis.risk),
        permissionLevel: security.permission_level,
        project: { name: 'default', template: 'development', policy: TEMPLATES.development.policy },
      });
      samples.push(performance.now() - start);
    }
    // The first 100 samples warm the JIT and the parser; they are not what a person waits for.
    const summary = summarize(samples.slice(100));
    worstP50 = Math.max(worstP50, summary.p50);
    lines.push(formatRow(`policy decision: ${command.slice(0, 36)}`, summary));
  }
  lines.push(`goal decision p50 ≤ 1 ms: ${worstP50 <= 1 ? 'met' : 'NOT met'} (${worstP50.toFixed(2)} ms)`);
  return lines;
}

const PATH_CHECKS = 5000;

/**
 * One file-guard check of a path reached through a symlink (`~` expanded, the link resolved on
 * disk, the allowed folders, NextAI's own files and the denied patterns): what every file tool
 * call and every path in a shell command costs. Goal ≤ 1 ms.
 */
export async function benchPathCheck(): Promise<string[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bench-paths-'));
  try {
    fs.mkdirSync(path.join(home, 'Projects', 'app', 'src'), { recursive: true });
    fs.writeFileSync(path.join(home, 'Projects', 'app', 'src', 'index.ts'), '');
    fs.symlinkSync(path.join(home, 'Projects', 'app'), path.join(home, 'Projects', 'link-in'));
    const security = { ...policyConfigSchema.parse({}).security, allowed_directories: ['~/Projects'] };
    const guard = new FileGuard({
      platform: currentPlatform(),
      homeDir: home,
      security,
      protectedPaths: [path.join(home, '.nextai')],
    });
    const cwd = path.join(home, 'Projects');
    const samples: number[] = [];
    for (let i = 0; i < PATH_CHECKS; i++) {
      const start = performance.now();
      guard.check('link-in/src/index.ts', 'read', cwd);
      samples.push(performance.now() - start);
    }
    const summary = summarize(samples.slice(200));
    return [
      formatRow('file guard: a path through a link', summary),
      `goal path check p50 ≤ 1 ms: ${summary.p50 <= 1 ? 'met' : 'NOT met'} (${summary.p50.toFixed(3)} ms)`,
    ];
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const AUDIT_APPENDS = 2000;
const AUDIT_VERIFY_ROWS = 10_000;

/** Appends and a full verification against a real SQLite file and anchor, as the daemon does them. */
export async function benchAudit(): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bench-audit-'));
  const db = await openDatabase(path.join(dir, 'data.db'), createLogger({ component: 'bench' }));
  try {
    const audit = new AuditLog(db, path.join(dir, 'audit-anchor.json'));
    const samples: number[] = [];
    for (let n = 0; n < AUDIT_VERIFY_ROWS; n++) {
      const entry = {
        kind: 'decision' as const,
        call_id: `call-${n}`,
        tool: 'bash_execute',
        parameters: { command: `echo ${n}` },
        risk: 'high' as const,
        action: 'require_approval' as const,
        layer: 'project_policy' as const,
        reason: 'asks first',
      };
      const start = performance.now();
      audit.append(entry);
      if (n < AUDIT_APPENDS) samples.push(performance.now() - start);
    }
    const appends = summarize(samples.slice(100));
    const started = performance.now();
    const verified = audit.verify();
    const verifyMs = performance.now() - started;
    if (!verified.ok) throw new Error('the bench audit log does not verify');
    return [
      formatRow('audit append (anchor rewrite included)', appends),
      `audit verify of ${AUDIT_VERIFY_ROWS} rows: ${verifyMs.toFixed(0)} ms`,
      `goal append p50 ≤ 2 ms: ${appends.p50 <= 2 ? 'met' : 'NOT met'} (${appends.p50.toFixed(2)} ms); ` +
        `goal verify ≤ 3 s: ${verifyMs <= 3000 ? 'met' : 'NOT met'}`,
    ];
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchEmergencyStop(): Promise<string[]> {
  // A real daemon in its own process: the bench is the person at the CLI (a client in the
  // daemon's own process would be judged the agent's and refused). Full auto, so `sleep` runs
  // without asking: the stop is what is measured.
  const home = makeHome('nx-bench-stop-');
  fs.writeFileSync(
    path.join(home.dir, 'config.json'),
    JSON.stringify({ projects: { default_approval_template: 'full-auto' } }),
    { mode: 0o600 },
  );
  const marker = `9${process.pid}`;
  const started = await runCli(['daemon', '--detach'], home.env);
  if (started.code !== 0) throw new Error(`The daemon did not start: ${started.stderr}`);
  const client = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'bench' },
  });
  // The real terminal tool (in the sandbox), one session per call in flight (calls in one session
  // run one after another). What the stop has to end is each session's command and what it started.
  const sessions = Array.from({ length: IN_FLIGHT }, (_, index) => `stop-${index}`);
  const ended: number[] = [];
  const observed: number[] = [];
  try {
    for (let round = 0; round < STOP_ROUNDS; round++) {
      // The stop ends every shell session: each round starts its own.
      for (const session_id of sessions) {
        const created = await client.peer.request('tools.call', {
          name: 'bash_session',
          input: { action: 'create', session_id, shell: 'bash' },
        });
        if (!created.ok) throw new Error(`Could not create session ${session_id}: ${created.error.message}`);
      }
      const calls = sessions.map((session_id) =>
        client.peer.request(
          'tools.call',
          { name: 'bash_execute', input: { command: `sleep ${marker}.${round}`, session_id } },
          { timeoutMs: 60_000 },
        ),
      );
      await waitForProcesses(`sleep ${marker}.${round}`, IN_FLIGHT);
      const start = performance.now();
      const report = await client.peer.request('safety.stop', { reason: 'bench' });
      await Promise.all(calls);
      observed.push(performance.now() - start);
      ended.push(report.ended_ms);
      if (report.aborted_calls !== IN_FLIGHT)
        throw new Error(`Expected ${IN_FLIGHT} calls in flight, the stop saw ${report.aborted_calls}.`);
      await client.peer.request('safety.reset', {});
    }
  } finally {
    client.close();
    await home.cleanup();
  }
  const inDaemon = summarize(ended);
  const atClient = summarize(observed);
  const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.ceil(0.99 * samples.length) - 1]!;
  return [
    formatRow(`emergency stop, ${IN_FLIGHT} calls in flight (until all ended)`, inDaemon),
    `${' '.repeat(52)}        p99 ${p99(ended).toFixed(2).padStart(8)} ms`,
    formatRow('  … as seen by the client (request → all calls answered)', atClient),
    `goal stop p99 ≤ 200 ms: stop p99 ${p99(ended).toFixed(1)} ms (${p99(ended) <= 200 ? 'met' : 'NOT met'})`,
  ];
}

export async function benchStopDuringQuickCalls(): Promise<string[]> {
  const model = await startFakeModelServer(
    Array.from({ length: BUSY_RUN_ROUNDS }, () => planningTurns(1, QUICK_CALLS)[0]!),
  );
  const home = makeHome('nx-bench-busy-stop-');
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const started = await runCli(['daemon', '--detach'], env);
  if (started.code !== 0) throw new Error(`The daemon did not start: ${started.stderr}`);
  const client = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'bench' },
  });
  let toolCallsFinished = 0;
  client.peer.onNotification('event', (event) => {
    if (event.type === 'run.step' && event.data.phase === 'finished' && event.data.kind === 'tool_call')
      toolCallsFinished += 1;
  });
  await client.peer.request('events.subscribe', { after_seq: 0 });
  const answered: number[] = [];
  try {
    for (let round = 0; round < BUSY_RUN_ROUNDS; round++) {
      const before = toolCallsFinished;
      await client.peer.request('runs.start', { goal: `Plan ${QUICK_CALLS} steps (${round})` });
      // The stop goes once the run is in the middle of its calls.
      const deadline = Date.now() + 20_000;
      while (toolCallsFinished < before + 20) {
        if (Date.now() > deadline) throw new Error('The run did not start its tool calls.');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const start = performance.now();
      await client.peer.request('safety.stop', { reason: 'bench' });
      answered.push(performance.now() - start);
      await client.peer.request('safety.reset', {});
    }
  } finally {
    client.close();
    await home.cleanup();
    await model.close();
  }
  return [formatRow(`emergency stop amid ${QUICK_CALLS} quick calls (until answered)`, summarize(answered))];
}

/** Waits until `count` processes whose command line contains `marker` are running. */
async function waitForProcesses(marker: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const running = fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker);
        } catch {
          return false;
        }
      });
    if (running.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`The ${count} bench processes did not start.`);
}
