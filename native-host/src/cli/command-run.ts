import { InvalidArgumentError, type Command } from 'commander';

import { AppError, ENDED_RUN_STATES, type DaemonEvent, type RunLimits, type RunView } from '@nextai/shared';

import type { DaemonClient } from '../client/daemon-client.js';

import { EXIT } from './exit-codes.js';
import { printJson, printLine } from './output.js';
import { formatAttention, formatDetached, formatRunEnd, formatRunStart, RunProgress } from './run-progress.js';
import { withDaemon } from './with-daemon.js';

interface RunOptions {
  project?: string;
  session?: string;
  maxSteps?: number;
  maxCost?: number;
  json?: boolean;
  detach?: boolean;
}

export function registerRunCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('run')
    .description(
      'Give the agent a goal and watch it work: its text, each tool call and result, and the cost so far. ' +
        'Exits 0 when the run finishes with an answer, 1 when it fails, 5 when it is stopped, 6 when it finishes ' +
        'without an answer (the model declined, a content filter stopped it, or it said nothing). ' +
        'Ctrl-C detaches; the run goes on.',
    )
    .argument('<goal...>', 'what the agent should do, e.g. "Summarise the README in ~/project"')
    .option('--project <name>', 'project whose approval policy applies')
    .option('--session <id>', 'continue this chat session (see `nextai sessions list`)')
    .option('--max-steps <n>', 'model turns the run may take (default 100)', positiveInteger)
    .option('--max-cost <usd>', 'money the run may spend on the model, in US dollars (default 5)', positiveNumber)
    .option('--json', 'print one JSON object a line: the run events, then {"run": …} with the final view')
    .option('--detach', 'print the run id and return at once; the run goes on in the daemon')
    .action(async (words: string[], options: RunOptions) => {
      const goal = words.join(' ').trim();
      if (goal === '') throw new AppError('INVALID_ARGUMENT', 'Say what the agent should do: nextai run "<goal>".');
      const limits: RunLimits = {
        ...(options.maxSteps !== undefined ? { max_steps: options.maxSteps } : {}),
        ...(options.maxCost !== undefined ? { max_cost_usd: options.maxCost } : {}),
      };
      const params = {
        goal,
        ...(options.project ? { project: options.project } : {}),
        ...(options.session ? { session_id: options.session } : {}),
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
      };

      if (options.detach) {
        const { run } = await withDaemon((client) => client.peer.request('runs.start', params));
        if (options.json) printJson({ run });
        else {
          // Only the id on stdout, so `id=$(nextai run --detach …)` works; the hints go to stderr.
          printLine(run.id);
          process.stderr.write(
            `nextai: run started\n  follow: nextai runs show ${run.id} --follow\n  stop:   nextai runs stop ${run.id}\n`,
          );
        }
        return;
      }

      const outcome = await withDaemon((client) =>
        followRun(client, async () => (await client.peer.request('runs.start', params)).run, {
          json: Boolean(options.json),
        }),
      );
      setExitCode(exitCodeForOutcome(outcome));
    });
}

export type FollowOutcome = { kind: 'ended'; run: RunView } | { kind: 'detached'; runId: string };

/**
 * Streams one run's progress until it ends, then prints its final view. `begin` starts the run
 * (or resumes, or looks it up): the event subscription is made before it, and events that arrive
 * before its answer names the run are held back, so nothing the run does is missed. Ctrl-C
 * detaches: the run belongs to the daemon and goes on.
 */
export async function followRun(
  client: DaemonClient,
  begin: () => Promise<RunView>,
  options: {
    json: boolean;
    /** Print the run's first line (`runs show --follow` has shown the run already). */ announce?: boolean;
  },
): Promise<FollowOutcome> {
  const { last_event_seq } = await client.peer.request('daemon.status', {});
  const early: DaemonEvent[] = [];
  // Set once `begin` has named the run; until then events are held in `early`.
  const following: { tracker?: RunProgress } = {};
  let markEnded!: () => void;
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });

  const show = (tracker: RunProgress, event: DaemonEvent) => {
    if (!tracker.accepts(event)) return;
    if (options.json) {
      process.stdout.write(`${JSON.stringify(event)}\n`);
      const attention = formatAttention(event, tracker.runId);
      if (attention !== '') process.stderr.write(attention);
    } else {
      process.stdout.write(tracker.format(event));
    }
    if (tracker.ended) markEnded();
  };
  client.peer.onNotification('event', (event) => {
    if (following.tracker) show(following.tracker, event);
    else early.push(event);
  });
  await client.peer.request('events.subscribe', { after_seq: last_event_seq });

  const run = await begin();
  // The model's thinking is printed dim on a terminal that shows colours (https://no-color.org).
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  const tracker = new RunProgress(run, { color });
  following.tracker = tracker;
  if (!options.json && options.announce !== false) process.stdout.write(formatRunStart(run));
  for (const event of early.splice(0)) show(tracker, event);
  // Following a run that has already ended: no state event will come.
  if (ENDED_RUN_STATES.includes(run.state)) markEnded();
  else {
    // Still waiting for something it asked before we looked: say so now, since its event is past.
    const pending = tracker.pending(run);
    if (options.json) process.stderr.write(pending);
    else process.stdout.write(pending);
  }

  let onInterrupt: (() => void) | undefined;
  const interrupted = new Promise<'detached'>((resolve) => {
    onInterrupt = () => resolve('detached');
    process.once('SIGINT', onInterrupt);
  });
  let how: 'ended' | 'detached' | 'disconnected';
  try {
    how = await Promise.race([
      ended.then(() => 'ended' as const),
      interrupted,
      client.disconnected.then(() => 'disconnected' as const),
    ]);
  } finally {
    if (onInterrupt) process.off('SIGINT', onInterrupt);
  }

  if (!options.json) process.stdout.write(tracker.close());
  if (how === 'detached') {
    process.stderr.write(`\n${formatDetached(run.id)}`);
    return { kind: 'detached', runId: run.id };
  }
  if (how === 'disconnected') {
    throw new AppError(
      'DAEMON_UNAVAILABLE',
      `The daemon closed the connection while run ${run.id} was going. Once it is back: nextai runs show ${run.id}`,
    );
  }
  const final = (await client.peer.request('runs.get', { id: run.id })).run;
  if (options.json) printJsonLine({ run: final });
  else {
    const resultShown = final.result !== null && tracker.streamed(final.result);
    process.stdout.write(formatRunEnd(final, { resultShown }));
  }
  return { kind: 'ended', run: final };
}

/** One JSON object on one line: `--json` output is JSON Lines. */
function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function exitCodeForOutcome(outcome: FollowOutcome): number {
  if (outcome.kind === 'detached') return EXIT.INTERRUPTED;
  switch (outcome.run.state) {
    case 'finished':
      // Finished without an answer (declined, filtered, nothing said) is no success for a script.
      return outcome.run.result_kind === undefined || outcome.run.result_kind === 'answer' ? EXIT.OK : EXIT.NO_ANSWER;
    case 'stopped':
      return EXIT.STOPPED;
    default:
      return EXIT.FAILURE;
  }
}

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('Give a whole number above 0.');
  return number;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('Give an amount above 0, e.g. 0.50.');
  return number;
}
