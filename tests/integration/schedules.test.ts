import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { DaemonEvent, ScheduleRunView, ScheduleView } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Scheduled tasks through the real daemon and CLI, with no browser anywhere: bad input refused
 * with its reason, the commands, a fixed-step task fired by the clock (real time, one minute),
 * approvals that park a scheduled run, an agent-run task against the scripted fake model, and
 * the service unit install with a stand-in `systemctl`.
 */
let home: TestHome;
let work: string;
let client: DaemonClient | undefined;
let model: FakeModelServer | undefined;
const events: DaemonEvent[] = [];
const waiters = new Set<() => void>();

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  client?.close();
  client = undefined;
  await home.cleanup();
  await model?.close();
  model = undefined;
  fs.rmSync(work, { recursive: true, force: true });
  events.length = 0;
});

/**
 * A home whose policy allows a work directory; the "locked" project forbids bash_execute, the
 * "auto" project (the full-auto template) runs file writes without asking.
 */
function prepare(extra: Record<string, unknown> = {}): void {
  home = makeHome();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-sched-work-'));
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) {
    delete home.env[name];
  }
  const config = {
    security: { allowed_directories: [work] },
    projects: {
      items: {
        auto: {
          name: 'Auto',
          approval: {
            mode: 'auto',
            risk_policies: {
              low: 'auto_approve',
              medium: 'auto_approve',
              high: 'auto_approve',
              critical: 'require_approval',
            },
            category_overrides: {},
            tool_overrides: {},
          },
        },
        locked: {
          name: 'Locked',
          approval: {
            mode: 'supervised',
            risk_policies: {
              low: 'auto_approve',
              medium: 'auto_approve',
              high: 'require_approval',
              critical: 'always_block',
            },
            category_overrides: {},
            tool_overrides: { bash_execute: 'always_block' },
          },
        },
      },
    },
    ...extra,
  };
  fs.writeFileSync(path.join(home.dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
}

async function connect(): Promise<DaemonClient> {
  const started = await runCli(['daemon', '--detach'], home.env);
  expect(started.code, started.stderr).toBe(0);
  const connected = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'schedules' },
  });
  connected.peer.onNotification('event', (event) => {
    events.push(event);
    for (const wake of waiters) wake();
  });
  await connected.peer.request('events.subscribe', { after_seq: 0 });
  client = connected;
  return connected;
}

/** Resolves with the first event (seen or to come) that matches. */
function eventWhere(match: (event: DaemonEvent) => boolean): Promise<DaemonEvent> {
  return new Promise((resolve) => {
    const look = () => {
      const found = events.find(match);
      if (!found) return;
      waiters.delete(look);
      resolve(found);
    };
    waiters.add(look);
    look();
  });
}

const finished = (scheduleId: string) => (event: DaemonEvent) =>
  event.type === 'schedule.run' && event.data.schedule_id === scheduleId && event.data.state === 'finished';

describe('nextai schedule: bad input is refused with the reason (exit code 2)', () => {
  it.each([
    [['--cron', '61 * * * *', '--instruction', 'x'], 'is not a valid cron expression: Invalid value for minute: 61'],
    [['--cron', '0 9 * * *', '--tz', 'Mars/Olympus', '--instruction', 'x'], '"Mars/Olympus" is not a time zone'],
    [
      ['--cron', '0 9 * * *', '--project', 'locked', '--instruction', 'x', '--grant', 'file_read,bash_execute'],
      'The task grants bash_execute, which the project "locked" forbids',
    ],
    [
      ['--cron', '0 9 * * *', '--steps', '[{"tool":"file_write","input":{"path":42}}]'],
      'Step 1 (file_write) has invalid input: path',
    ],
    [
      ['--cron', '0 9 * * *', '--steps', '[{"tool":"file_write","input":{"path":"/etc/x","content":""}}]'],
      'would be blocked every time',
    ],
    [['--cron', '0 9 * * *', '--steps', 'not json'], '--steps is not valid JSON'],
    [
      ['--cron', '0 9 * * *'],
      'A task needs an instruction for the agent (--instruction) or a list of tool steps (--steps)',
    ],
  ])('%j', async (args, reason) => {
    prepare();
    const result = await runCli(['schedule', 'add', '--name', 'bad', ...args], home.env);
    expect(result.stderr).toContain(reason);
    expect(result.code).toBe(2);
  });
});

describe('scheduled tasks in the daemon', () => {
  it('add, list, show (cron in English and Chinese), disable, enable, history and remove', async () => {
    prepare();
    const added = await runCli(
      [
        'schedule', 'add', '--name', 'morning', '--cron', '0 9 * * 1-5', '--tz', 'Asia/Shanghai',
        '--steps', JSON.stringify([{ tool: 'system_info', input: { categories: ['os'] } }]),
        '--daily-cap', '20', '--max-wall', '600', '--max-retries', '1', '--overlap', '--urgent', '--json',
      ],
      home.env,
    ); // prettier-ignore
    expect(added.code, added.stderr).toBe(0);
    const task = JSON.parse(added.stdout) as ScheduleView;
    // The task's own settings, which turning it off and on must keep.
    const own = (view: ScheduleView) => [
      view.daily_cost_cap_usd,
      view.limits.max_wall_seconds,
      view.max_retries,
      view.allow_overlap,
      view.urgent,
    ];
    expect(own(task)).toEqual([20, 600, 1, true, true]);
    expect(task).toMatchObject({
      name: 'morning',
      timezone: 'Asia/Shanghai',
      kind: 'steps',
      enabled: true,
      catch_up: 'once',
      granted_tools: { tools: ['system_info'] },
      description: { en: 'At 09:00, Monday through Friday', 'zh-CN': '在09:00, 星期一至星期五' },
    });
    // 09:00 in Shanghai is 01:00 UTC.
    expect(task.next_run_at).toMatch(/T01:00:00\.000Z$/);

    const listed = await runCli(['schedule', 'list', '--json'], home.env);
    expect((JSON.parse(listed.stdout) as { schedules: ScheduleView[] }).schedules.map((t) => t.name)).toEqual([
      'morning',
    ]);
    const zh = await runCli(['schedule', 'list'], { ...home.env, LANG: 'zh_CN.UTF-8' });
    expect(zh.stdout).toContain('在09:00, 星期一至星期五');
    const shown = await runCli(['schedule', 'show', 'morning'], home.env);
    expect(shown.stdout).toContain('At 09:00, Monday through Friday');
    expect(shown.stdout).toContain('在09:00, 星期一至星期五');

    expect((await runCli(['schedule', 'disable', 'morning'], home.env)).stdout).toContain('disabled "morning"');
    const off = JSON.parse((await runCli(['schedule', 'show', 'morning', '--json'], home.env)).stdout) as {
      schedule: ScheduleView;
    };
    expect([off.schedule.enabled, off.schedule.next_run_at]).toEqual([false, null]);
    expect(own(off.schedule)).toEqual([20, 600, 1, true, true]);
    expect((await runCli(['schedule', 'enable', 'morning'], home.env)).stdout).toContain('enabled "morning"; next run');
    const on = JSON.parse((await runCli(['schedule', 'show', 'morning', '--json'], home.env)).stdout) as {
      schedule: ScheduleView;
    };
    expect(own(on.schedule)).toEqual([20, 600, 1, true, true]);

    const connected = await connect();
    const now = await runCli(['schedule', 'run-now', 'morning', '--json'], home.env);
    expect(now.code, now.stderr).toBe(0);
    const run = JSON.parse(now.stdout) as ScheduleRunView;
    expect(run).toMatchObject({ trigger: 'manual', state: 'running', attempt: 1 });
    const done = await eventWhere(finished(task.id));
    expect(done.data).toMatchObject({ outcome: 'succeeded', trigger: 'manual', history_id: run.id });
    const history = await runCli(['schedule', 'history', 'morning', '--json'], home.env);
    const runs = JSON.parse(history.stdout) as ScheduleRunView[];
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: 'succeeded', cost_usd: 0 });
    expect(runs[0]?.summary).toContain('1 step done (system_info)');
    expect(runs[0]?.summary_translations?.['zh-CN']).toContain('已完成 1 步（system_info）。');
    // The call went through the gateway like any other: audited, with the schedule as its source.
    const audit = await connected.peer.request('audit.list', { limit: 50 });
    expect(
      audit.records.some((record) => record.entry.source === 'schedule' && record.entry.tool === 'system_info'),
    ).toBe(true);

    expect((await runCli(['schedule', 'remove', 'morning'], home.env)).code).toBe(0);
    const gone = await runCli(['schedule', 'show', 'morning'], home.env);
    expect(gone.stderr).toContain('There is no scheduled task with the id or name "morning"');
  });

  it('the running daemon, with no browser connected, fires a one-minute schedule of fixed steps that writes a file', async () => {
    prepare();
    const connected = await connect();
    const status = await connected.peer.request('daemon.status', {});
    expect(status.clients.filter((other) => other.kind === 'extension')).toEqual([]);
    const target = path.join(work, 'heartbeat.txt');
    const added = await runCli(
      [
        'schedule', 'add', '--name', 'every-minute', '--cron', '* * * * *', '--project', 'auto',
        '--steps', JSON.stringify([{ tool: 'file_write', input: { path: target, content: 'written by the scheduler\n' } }]),
        '--json',
      ],
      home.env,
    ); // prettier-ignore
    expect(added.code, added.stderr).toBe(0);
    const task = JSON.parse(added.stdout) as ScheduleView;
    expect(fs.existsSync(target)).toBe(false);

    const fired = await eventWhere(finished(task.id));
    expect(fired.data).toMatchObject({ outcome: 'succeeded', trigger: 'cron', attempt: 1 });
    // It fired for the minute it was due.
    expect(fired.data.scheduled_for).toBe(task.next_run_at);
    expect(fs.readFileSync(target, 'utf8')).toBe('written by the scheduler\n');
  }, 150_000);

  it('a scheduled call that needs approval parks the run and waits for the person, then goes on', async () => {
    prepare();
    await connect();
    // Outside the allowed folder (and not in /tmp, which the sandbox has its own of): the step
    // asks to leave the sandbox.
    const target = path.join(fs.mkdtempSync('/var/tmp/nx-sched-outside-'), 'approved.txt');
    const added = await runCli(
      [
        'schedule', 'add', '--name', 'needs-ok', '--cron', '0 3 * * *',
        '--steps', JSON.stringify([{ tool: 'bash_execute', input: { command: `echo ok > ${target}` } }]),
        '--json',
      ],
      home.env,
    ); // prettier-ignore
    expect(added.code, added.stderr).toBe(0);
    const task = JSON.parse(added.stdout) as ScheduleView;
    await runCli(['schedule', 'run-now', 'needs-ok'], home.env);
    await eventWhere(
      (event) =>
        event.type === 'schedule.run' && event.data.schedule_id === task.id && event.data.state === 'waiting_approval',
    );
    const pending = JSON.parse((await runCli(['approvals', 'list', '--json'], home.env)).stdout) as {
      id: string;
      source: string;
      tool: string;
    }[];
    expect(pending.map((approval) => [approval.source, approval.tool])).toEqual([['schedule', 'bash_execute']]);
    expect(fs.existsSync(target)).toBe(false);
    const shown = JSON.parse((await runCli(['schedule', 'show', 'needs-ok', '--json'], home.env)).stdout) as {
      history: ScheduleRunView[];
    };
    expect(shown.history[0]?.state).toBe('waiting_approval');

    expect((await runCli(['approvals', 'approve', pending[0]!.id], home.env)).code).toBe(0);
    const done = await eventWhere(finished(task.id));
    expect(done.data.outcome).toBe('succeeded');
    expect(fs.readFileSync(target, 'utf8')).toBe('ok\n');
    fs.rmSync(path.dirname(target), { recursive: true, force: true });
  });

  it('a daemon stop during a fixed step: no later step runs, and the step that was going is never run again by itself', async () => {
    prepare();
    await connect();
    const log = path.join(work, 'invoice.log');
    const steps = [
      { tool: 'bash_execute', input: { command: `echo made >> ${log}` } },
      { tool: 'bash_execute', input: { command: `sleep 600; echo sent >> ${log}` } },
      { tool: 'bash_execute', input: { command: `echo done >> ${log}` } },
    ];
    const added = await runCli(
      ['schedule', 'add', '--name', 'invoice', '--cron', '0 3 * * *', '--project', 'auto', '--steps', JSON.stringify(steps), '--json'],
      home.env,
    ); // prettier-ignore
    expect(added.code, added.stderr).toBe(0);
    const task = JSON.parse(added.stdout) as ScheduleView;
    expect((await runCli(['schedule', 'run-now', 'invoice'], home.env)).code).toBe(0);
    const started = (event: DaemonEvent) => event.type === 'tool.started' && event.data.source === 'schedule';
    // The second step has begun.
    await expect.poll(() => events.filter(started).length, { timeout: 20_000 }).toBe(2);

    client?.close();
    client = undefined;
    expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);
    await connect();
    const shown = JSON.parse((await runCli(['schedule', 'show', 'invoice', '--json'], home.env)).stdout) as {
      schedule: ScheduleView;
      history: ScheduleRunView[];
    };
    expect(shown.history.map((run) => [run.outcome, run.error_code])).toEqual([['interrupted', 'OUTCOME_UNKNOWN']]);
    expect(shown.history[0]?.summary).toContain(
      'Step 2 of 3 (bash_execute) had begun and may or may not have happened',
    );
    expect(shown.schedule.retry_at).toBeNull();
    // The first step ran once; the third never started.
    expect(fs.readFileSync(log, 'utf8')).toBe('made\n');
    expect(task.id).toBe(shown.schedule.id);
  });

  it('an instruction becomes an agent run with the task’s grant: the model is offered only the granted tools', async () => {
    prepare();
    model = await startFakeModelServer([
      { kind: 'tool_calls', calls: [{ name: 'file_write', input: { path: path.join(work, 'x.txt'), content: 'x' } }] },
      { kind: 'text', text: 'I could not write; I only read.' },
    ]);
    Object.assign(home.env, { ANTHROPIC_BASE_URL: model.anthropicBaseUrl, ANTHROPIC_API_KEY: 'sk-ant-test-key' });
    await connect();
    const added = await runCli(
      ['schedule', 'add', '--name', 'reader', '--cron', '0 3 * * *', '--instruction', 'Read the notes', '--grant', 'file_read,system_info', '--json'],
      home.env,
    ); // prettier-ignore
    expect(added.code, added.stderr).toBe(0);
    const task = JSON.parse(added.stdout) as ScheduleView;
    const started = JSON.parse(
      (await runCli(['schedule', 'run-now', 'reader', '--json'], home.env)).stdout,
    ) as ScheduleRunView;
    expect(started.run_id).not.toBeNull();
    const done = await eventWhere(finished(task.id));
    expect(done.data).toMatchObject({ outcome: 'succeeded', summary: 'I could not write; I only read.' });
    const offered = (model.requests[0]?.body.tools as { name: string }[]).map((tool) => tool.name).sort();
    expect(offered).toEqual(['file_read', 'system_info']);
    // The model asked for a tool outside the grant anyway: the policy refused it.
    expect(fs.existsSync(path.join(work, 'x.txt'))).toBe(false);
    expect(JSON.stringify(model.requests[1]?.body.messages.at(-1))).toContain('This task was not granted file_write');
  });
});

describe('nextai install --service', () => {
  it('--dry-run prints the unit and writes nothing; install and uninstall write, register and remove it', async () => {
    prepare();
    const bin = path.join(work, 'bin');
    const config = path.join(work, 'config');
    const calls = path.join(work, 'systemctl-calls.txt');
    fs.mkdirSync(bin);
    // A stand-in systemctl that records how it was called (there is no user bus in a test container).
    fs.writeFileSync(path.join(bin, 'systemctl'), `#!/bin/sh\necho "$@" >> '${calls}'\n`, { mode: 0o755 });
    const env = { ...home.env, PATH: `${bin}:${process.env.PATH ?? ''}`, XDG_CONFIG_HOME: config };
    const unit = path.join(config, 'systemd', 'user', 'nextai-agent.service');

    const dry = await runCli(['install', '--service', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would write ${unit}:`);
    expect(dry.stdout).toContain(
      `ExecStart="${process.execPath}" "${CLI_BUNDLE}" "daemon" "--service" "--home" "${home.dir}"`,
    );
    expect(dry.stdout).toContain('would run systemctl --user enable --now nextai-agent.service');
    expect(fs.existsSync(unit)).toBe(false);
    expect(fs.existsSync(calls)).toBe(false);

    const installed = await runCli(['install', '--service'], env);
    expect(installed.code, installed.stderr).toBe(0);
    expect(fs.readFileSync(unit, 'utf8')).toContain('Restart=on-failure');
    const removed = await runCli(['uninstall', '--service'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.existsSync(unit)).toBe(false);
    expect(fs.readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      '--user daemon-reload',
      '--user enable --now nextai-agent.service',
      '--user disable --now nextai-agent.service',
      '--user daemon-reload',
    ]);
  });
});
