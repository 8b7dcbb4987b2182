import { Option, type Command } from 'commander';

import { AppError, RUN_STATES, type RunView } from '@nextai/shared';

import { exitCodeForOutcome, followRun, positiveInteger } from './command-run.js';
import { printJson, printLine } from './output.js';
import { formatRunDetails, formatRunTable } from './run-progress.js';
import { withDaemon } from './with-daemon.js';

export function registerRunsCommand(program: Command, setExitCode: (code: number) => void): void {
  const runs = program
    .command('runs')
    .description('See agent runs and steer them: list, show, pause, resume, stop, steer, answer.');

  runs
    .command('list')
    .description('List runs, newest first.')
    .addOption(new Option('--state <state>', 'only runs in this state').choices([...RUN_STATES]))
    .option('--active', 'only runs that have not ended (running, waiting or paused)')
    .option('--session <id>', "only this session's runs")
    .option('--limit <n>', 'how many (default 50)', positiveInteger)
    .option('--json', 'print a JSON array of runs')
    .action(async (options: { state?: string; active?: boolean; session?: string; limit?: number; json?: boolean }) => {
      if (options.state && options.active) {
        throw new AppError('INVALID_ARGUMENT', 'Use --state or --active, not both.');
      }
      const state = options.active ? ('active' as const) : (options.state as RunView['state'] | undefined);
      const { runs: list } = await withDaemon((client) =>
        client.peer.request('runs.list', {
          ...(state ? { state } : {}),
          ...(options.session ? { session_id: options.session } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        }),
      );
      if (options.json) printJson(list);
      else if (list.length === 0) {
        printLine(state || options.session ? 'No runs match.' : 'No runs yet. Start one with: nextai run "<goal>"');
      } else process.stdout.write(formatRunTable(list));
    });

  runs
    .command('show')
    .description('Show a run: its state, usage, what it waits for, its answer or error.')
    .argument('<id>', 'run id (see `nextai runs list`)')
    .option('--steps', 'also list its steps (each action with its outcome)')
    .option('--follow', 'then stream its progress until it ends, as `nextai run` does')
    .option('--json', 'print JSON ({"run": …, "steps": […]}); with --follow, JSON Lines as `nextai run --json`')
    .action(async (id: string, options: { steps?: boolean; follow?: boolean; json?: boolean }) => {
      if (options.follow) {
        const outcome = await withDaemon((client) =>
          followRun(
            client,
            async () => {
              const shown = await client.peer.request('runs.get', { id, steps: Boolean(options.steps) });
              if (!options.json) process.stdout.write(`${formatRunDetails(shown.run, shown.steps)}\n`);
              return shown.run;
            },
            { json: Boolean(options.json), announce: false },
          ),
        );
        setExitCode(exitCodeForOutcome(outcome));
        return;
      }
      const shown = await withDaemon((client) =>
        client.peer.request('runs.get', { id, steps: Boolean(options.steps) }),
      );
      if (options.json) printJson(shown);
      else process.stdout.write(formatRunDetails(shown.run, shown.steps));
    });

  runs
    .command('resume')
    .description('Continue a paused run, or one a daemon restart left unfinished.')
    .argument('<id>', 'run id')
    .option('--follow', 'then stream its progress until it ends')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { follow?: boolean; json?: boolean }) => {
      if (options.follow) {
        const outcome = await withDaemon((client) =>
          followRun(client, async () => (await client.peer.request('runs.resume', { id })).run, {
            json: Boolean(options.json),
          }),
        );
        setExitCode(exitCodeForOutcome(outcome));
        return;
      }
      const { run } = await withDaemon((client) => client.peer.request('runs.resume', { id }));
      report(
        run,
        options.json,
        `resumed run ${run.id} (now ${run.state})`,
        `follow: nextai runs show ${run.id} --follow`,
      );
    });

  runs
    .command('pause')
    .description('Park a running run after the action in progress; `nextai runs resume` continues it.')
    .argument('<id>', 'run id')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const { run } = await withDaemon((client) => client.peer.request('runs.pause', { id }));
      report(run, options.json, `pausing run ${run.id} (now ${run.state})`, `continue: nextai runs resume ${run.id}`);
    });

  runs
    .command('stop')
    .description('End a run: the model call and the tool in progress are aborted.')
    .argument('<id>', 'run id')
    .option('--reason <text>', 'why (kept with the run)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { reason?: string; json?: boolean }) => {
      const { run } = await withDaemon((client) =>
        client.peer.request('runs.stop', { id, ...(options.reason ? { reason: options.reason } : {}) }),
      );
      report(run, options.json, `stopped run ${run.id} (now ${run.state})`);
    });

  runs
    .command('steer')
    .description('Give a run in progress a new instruction; the model reads it at its next turn.')
    .argument('<id>', 'run id')
    .argument('<text...>', 'the instruction, e.g. "use the staging database instead"')
    .option('--json', 'print JSON')
    .action(async (id: string, words: string[], options: { json?: boolean }) => {
      const { run } = await withDaemon((client) => client.peer.request('runs.steer', { id, text: words.join(' ') }));
      report(run, options.json, `sent to run ${run.id} (${run.state}); the model reads it at its next turn`);
    });

  runs
    .command('answer')
    .description('Answer the question a run is waiting on.')
    .argument('<id>', 'run id')
    .argument('<answer...>', 'your answer')
    .option('--json', 'print JSON')
    .action(async (id: string, words: string[], options: { json?: boolean }) => {
      const { run } = await withDaemon((client) => client.peer.request('runs.answer', { id, answer: words.join(' ') }));
      report(run, options.json, `answered run ${run.id} (now ${run.state})`);
    });
}

function report(run: RunView, json: boolean | undefined, line: string, hint?: string): void {
  if (json) {
    printJson({ run });
    return;
  }
  printLine(line);
  if (hint) printLine(`  ${hint}`);
}
