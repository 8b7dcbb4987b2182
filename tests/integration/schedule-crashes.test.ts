import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { ScheduleRunView, ScheduleView } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { exitOf, runCli, spawnDaemon } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The crash-loop guard against a real daemon killed with SIGKILL, as a kill from outside, a power
 * cut or another run's crash would end it. A death is put down to a scheduled task only when its
 * run was the only thing going: three deaths while another task's run was going too turn neither
 * task off, and each run's history says why the death did not count; three deaths with one
 * task's run alone going turn that task off, with a reason that names each death.
 */
let home: TestHome | undefined;
let work: string | undefined;
let daemon: ChildProcess | undefined;
const daemonLog: string[] = [];

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGKILL');
    await exitOf(daemon);
  }
  daemon = undefined;
  await home?.cleanup();
  if (work) fs.rmSync(work, { recursive: true, force: true });
  home = undefined;
  work = undefined;
  daemonLog.length = 0;
});

/** Starts the daemon in the foreground; resolves once it has dealt with what the last one left and listens. */
function startDaemon(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawnDaemon(env);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        daemonLog.push(line);
        // Logged by Daemon.start once the scheduler has judged how the last daemon ended.
        if (line.includes('daemon started')) resolve(child);
      }
    });
    child.stdout?.resume();
    child.once('exit', (code, signal) =>
      reject(
        new Error(
          `the daemon exited before it was ready (${String(code ?? signal)}):\n${daemonLog.slice(-20).join('\n')}`,
        ),
      ),
    );
  });
}

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const result = await runCli(args, env);
  expect(result.code, `nextai ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function show(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<{ schedule: ScheduleView; history: ScheduleRunView[] }> {
  return JSON.parse(await cli(['schedule', 'show', name, '--json'], env)) as {
    schedule: ScheduleView;
    history: ScheduleRunView[];
  };
}

describe('the crash-loop guard, with a real daemon killed with SIGKILL', () => {
  it(
    'turns a task off only for deaths it alone was going at, and says why at each death',
    { timeout: 180_000 },
    async () => {
      home = makeHome('nx-crashloop-');
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-crashloop-work-'));
      // A project that runs the step without asking, so that each run is going when the daemon dies.
      fs.writeFileSync(
        path.join(home.dir, 'config.json'),
        JSON.stringify({
          security: { allowed_directories: [work] },
          projects: { default_approval_template: 'full-auto' },
        }),
        { mode: 0o600 },
      );
      const env: NodeJS.ProcessEnv = { ...home.env, NEXTAI_LOG_LEVEL: 'info' };
      for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'])
        delete env[name];
      daemon = await startDaemon(env);
      const steps = JSON.stringify([{ tool: 'bash_execute', input: { command: 'sleep 600' } }]);
      for (const name of ['backup', 'report']) {
        await cli(['schedule', 'add', '--name', name, '--cron', '0 3 * * *', '--steps', steps, '--json'], env);
      }

      /** Starts a run of each task named, then kills the daemon and starts it again. */
      const dieDuring = async (...names: string[]) => {
        const started: string[] = [];
        for (const name of names) {
          const run = JSON.parse(await cli(['schedule', 'run-now', name, '--json'], env)) as ScheduleRunView;
          expect(run.state).toBe('running');
          started.push(run.started_at);
        }
        const child = daemon!;
        child.kill('SIGKILL');
        await exitOf(child);
        daemon = await startDaemon(env);
        return started;
      };

      // Three deaths while both tasks' runs were going: put down to neither.
      for (let death = 0; death < 3; death++) await dieDuring('backup', 'report');
      for (const [name, other] of [
        ['backup', 'report'],
        ['report', 'backup'],
      ] as const) {
        const { schedule, history } = await show(name, env);
        expect(schedule.enabled, `${name} after three deaths it did not cause alone`).toBe(true);
        expect(history.map((run) => run.outcome)).toEqual(['crashed', 'crashed', 'crashed']);
        for (const run of history) {
          expect(run.summary).toContain(
            `It does not count against the task: runs of other tasks were going too ("${other}")`,
          );
        }
      }
      expect(daemonLog.filter((line) => line.includes('the death is not put down to its task'))).toHaveLength(6);

      // Three deaths with the backup's run alone going: put down to it, and it is turned off.
      const starts: string[] = [];
      for (let death = 0; death < 3; death++) starts.push(...(await dieDuring('backup')));
      const backup = await show('backup', env);
      expect(backup.schedule.enabled).toBe(false);
      const reason = backup.schedule.disabled_reason ?? '';
      expect(reason).toContain('the daemon died during its runs 3 times in a row');
      for (const start of starts) expect(reason).toContain(`between ${start} and`);
      expect(reason).toContain('each time its run was the only thing going and no other cause was known');
      expect(backup.history[1]?.summary).toContain('It counts against the task');
      expect((await show('report', env)).schedule.enabled).toBe(true);
      expect(daemonLog.some((line) => line.includes('turned off a scheduled task that kept crashing the daemon'))).toBe(
        true,
      );
    },
  );
});
