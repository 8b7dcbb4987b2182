import { InvalidArgumentError, Option, type Command } from 'commander';

import {
  AppError,
  CATCH_UP_POLICIES,
  RISK_LEVELS,
  grantedToolSetSchema,
  scheduleStepSchema,
  describeZodError,
  type GrantedToolSet,
  type RiskLevel,
  type ScheduleDefinitionInput,
  type ScheduleRunView,
  type ScheduleStep,
  type ScheduleView,
} from '@nextai/shared';

import { positiveInteger } from './command-run.js';
import { printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

interface AddOptions {
  name: string;
  cron: string;
  tz?: string;
  instruction?: string;
  steps?: string;
  grant?: string;
  maxRisk?: RiskLevel;
  dir?: string[];
  domain?: string[];
  project?: string;
  catchUp?: (typeof CATCH_UP_POLICIES)[number];
  overlap?: boolean;
  retry: boolean;
  maxRetries?: number;
  retryBackoff?: number;
  maxSteps?: number;
  maxTokens?: number;
  maxCost?: number;
  maxWall?: number;
  dailyCap?: number;
  urgent?: boolean;
  disabled?: boolean;
  json?: boolean;
}

export function registerScheduleCommand(program: Command): void {
  const schedule = program
    .command('schedule')
    .description(
      'Scheduled tasks the daemon runs on its own, with no browser open: add, list, show, enable, disable, remove, run-now, history.',
    );

  schedule
    .command('add')
    .description(
      'Add a task: a cron time in a time zone, and either an instruction for the agent or fixed tool steps (no model needed).',
    )
    .requiredOption('--name <name>', 'a name to refer to it by')
    .requiredOption(
      '--cron <expr>',
      'five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"; or @daily…',
    )
    .option('--tz <zone>', "IANA time zone, e.g. Asia/Shanghai (default: this computer's)")
    .option('--instruction <text>', 'what the agent should do at each run')
    .option('--steps <json>', 'fixed tool calls instead: a JSON array of {"tool": name, "input": {…}}')
    .option(
      '--grant <tools>',
      'the tools it may use: comma-separated names, or a JSON grant {"tools": […], "restrictions": {…}}; only narrows the project policy',
    )
    .addOption(
      new Option('--max-risk <level>', 'grant restriction: the highest risk a call may have').choices([...RISK_LEVELS]),
    )
    .option('--dir <directory...>', 'grant restriction: the folders file tools may use')
    .option('--domain <domain...>', 'grant restriction: the domains browser tools may visit')
    .option('--project <name>', 'the project whose approval policy applies (default project otherwise)')
    .addOption(
      new Option('--catch-up <policy>', 'runs missed while the computer was off: skip, once (default), each').choices([
        ...CATCH_UP_POLICIES,
      ]),
    )
    .option('--overlap', 'let a run start while the previous one is still going')
    .option('--no-retry', 'do not try a failed run again')
    .option('--max-retries <n>', 'tries after a failure (default 3)', nonNegativeInteger)
    .option('--retry-backoff <seconds>', 'wait before the first retry, doubled each time (default 60)', positiveInteger)
    .option('--max-steps <n>', 'per run: model turns (agent runs)', positiveInteger)
    .option('--max-tokens <n>', 'per run: tokens (agent runs)', positiveInteger)
    .option('--max-cost <usd>', 'per run: money, in US dollars (default 1)', positiveAmount)
    .option('--max-wall <seconds>', 'per run: wall-clock time before it is stopped (default 1800)', positiveInteger)
    .option('--daily-cap <usd>', 'all runs of this task in one day: money, in US dollars (default 5)', positiveAmount)
    .option('--urgent', 'run even while the computer is on battery')
    .option('--disabled', 'add it turned off')
    .option('--json', 'print the task as JSON')
    .action(async (options: AddOptions) => {
      const definition = definitionFrom(options);
      const { schedule: created } = await withDaemon((client) => client.peer.request('schedules.create', definition));
      if (options.json) printJson(created);
      else {
        printLine(`added "${created.name}" (${created.id})`);
        printTask(created, { details: false });
      }
    });

  schedule
    .command('list')
    .description('List the tasks with their next and last run.')
    .option('--json', 'print JSON: {"schedules": […], "heartbeat": {…}, "presence": {…}}')
    .action(async (options: { json?: boolean }) => {
      const listed = await withDaemon((client) => client.peer.request('schedules.list', {}));
      if (options.json) {
        printJson(listed);
        return;
      }
      if (listed.schedules.length === 0) {
        printLine(
          'No scheduled tasks. Add one with: nextai schedule add --name NAME --cron "0 9 * * *" --instruction "…"',
        );
      }
      for (const task of listed.schedules) printTask(task, { details: false });
      const heartbeat = listed.heartbeat;
      printLine(
        `heartbeat: ${heartbeat.enabled ? `every ${heartbeat.interval_minutes} min` : 'off'}, ${heartbeat.file}` +
          (heartbeat.open_items.length > 0 ? `, ${heartbeat.open_items.length} open item(s)` : ''),
      );
      if (heartbeat.problem) printLine(`heartbeat problem: ${heartbeat.problem}`);
      const presence = listed.presence;
      const power =
        presence.on_battery === null
          ? 'mains power (no battery seen)'
          : presence.on_battery
            ? 'on battery'
            : 'mains power';
      const screen =
        presence.screen_locked === null
          ? 'screen lock unknown'
          : presence.screen_locked
            ? 'screen locked'
            : 'screen unlocked';
      printLine(`now: ${power}, ${screen}${presence.sleeping ? ', going to sleep' : ''}`);
    });

  schedule
    .command('show')
    .description('Show one task: its settings, its cron time in words (English and Chinese), and recent runs.')
    .argument('<task>', 'task name or id')
    .option('--limit <n>', 'how many recent runs (default 10)', positiveInteger)
    .option('--json', 'print JSON: {"schedule": …, "history": […]}')
    .action(async (ref: string, options: { limit?: number; json?: boolean }) => {
      const shown = await withDaemon((client) =>
        client.peer.request('schedules.get', { id: ref, history_limit: options.limit ?? 10 }),
      );
      if (options.json) {
        printJson(shown);
        return;
      }
      printTask(shown.schedule, { details: true });
      printLine('recent runs:');
      if (shown.history.length === 0) printLine('  none yet');
      for (const run of shown.history) printLine(`  ${formatRun(run, shown.schedule.timezone)}`);
    });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    schedule
      .command(verb)
      .description(enabled ? 'Turn a task on (runs it missed while off are not caught up).' : 'Turn a task off.')
      .argument('<task>', 'task name or id')
      .action(async (ref: string) => {
        const { schedule: updated } = await withDaemon((client) =>
          client.peer.request('schedules.update', { id: ref, changes: { enabled } }),
        );
        printLine(
          `${enabled ? 'enabled' : 'disabled'} "${updated.name}"${updated.next_run_at ? `; next run ${timeIn(updated.next_run_at, updated.timezone)}` : ''}`,
        );
      });
  }

  schedule
    .command('remove')
    .description('Remove a task and its history.')
    .argument('<task>', 'task name or id')
    .action(async (ref: string) => {
      await withDaemon((client) => client.peer.request('schedules.delete', { id: ref }));
      printLine(`removed "${ref}"`);
    });

  schedule
    .command('run-now')
    .description('Start a run of the task now, whatever its cron time says.')
    .argument('<task>', 'task name or id')
    .option('--json', 'print the run as JSON')
    .action(async (ref: string, options: { json?: boolean }) => {
      const { run } = await withDaemon((client) => client.peer.request('schedules.run_now', { id: ref }));
      if (options.json) printJson(run);
      else
        printLine(
          `started a run of "${ref}" (${run.id})${run.run_id ? `; follow it with: nextai runs show ${run.run_id} --follow` : ''}`,
        );
    });

  schedule
    .command('history')
    .description('Runs of one task, or of every task, newest first: outcome, duration, cost and what came of it.')
    .argument('[task]', 'task name or id (all tasks when omitted)')
    .option('--limit <n>', 'how many (default 50)', positiveInteger)
    .option('--json', 'print a JSON array of runs')
    .action(async (ref: string | undefined, options: { limit?: number; json?: boolean }) => {
      const { runs } = await withDaemon((client) =>
        client.peer.request('schedules.history', {
          ...(ref ? { id: ref } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        }),
      );
      if (options.json) printJson(runs);
      else if (runs.length === 0) printLine('No runs yet.');
      else for (const run of runs) printLine(formatRun(run));
    });
}

/** The task definition from the command line; bad JSON or a contradiction is an INVALID_ARGUMENT (exit 2). */
export function definitionFrom(options: AddOptions): ScheduleDefinitionInput {
  const steps = options.steps === undefined ? undefined : parseSteps(options.steps);
  let grant = options.grant === undefined ? undefined : parseGrant(options.grant);
  const restrictions = {
    ...(options.maxRisk ? { max_risk_level: options.maxRisk } : {}),
    ...(options.dir ? { allowed_directories: options.dir } : {}),
    ...(options.domain ? { allowed_domains: options.domain } : {}),
  };
  if (Object.keys(restrictions).length > 0) {
    if (!grant && steps) grant = { tools: [...new Set(steps.map((step) => step.tool))] };
    if (!grant) {
      throw new AppError(
        'INVALID_ARGUMENT',
        '--max-risk, --dir and --domain restrict a grant: name the tools with --grant too.',
      );
    }
    grant = { ...grant, restrictions: { ...grant.restrictions, ...restrictions } };
  }
  const limits = {
    ...(options.maxSteps ? { max_steps: options.maxSteps } : {}),
    ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
    ...(options.maxCost ? { max_cost_usd: options.maxCost } : {}),
    ...(options.maxWall ? { max_wall_seconds: options.maxWall } : {}),
  };
  return {
    name: options.name,
    cron: options.cron,
    ...(options.tz ? { timezone: options.tz } : {}),
    ...(options.instruction !== undefined ? { instruction: options.instruction } : {}),
    ...(steps ? { steps } : {}),
    ...(grant ? { granted_tools: grant } : {}),
    ...(options.project ? { project: options.project } : {}),
    ...(options.catchUp ? { catch_up: options.catchUp } : {}),
    ...(options.overlap ? { allow_overlap: true } : {}),
    retry_on_failure: options.retry,
    ...(options.maxRetries !== undefined ? { max_retries: options.maxRetries } : {}),
    ...(options.retryBackoff ? { retry_backoff_seconds: options.retryBackoff } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(options.dailyCap ? { daily_cost_cap_usd: options.dailyCap } : {}),
    ...(options.urgent ? { urgent: true } : {}),
    ...(options.disabled ? { enabled: false } : {}),
  };
}

function parseSteps(raw: string): ScheduleStep[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new AppError('INVALID_ARGUMENT', `--steps is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `--steps must be a JSON array of at least one step${Array.isArray(value) ? ' (this one is empty)' : ''}, ` +
        'e.g. \'[{"tool":"file_write","input":{"path":"~/Desktop/a.txt","content":"hi"}}]\'.',
    );
  }
  return value.map((step, index) => {
    const parsed = scheduleStepSchema.safeParse(step);
    if (!parsed.success) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `Step ${index + 1} of --steps must be {"tool": name, "input": {…}}: ${describeZodError(parsed.error)}`,
      );
    }
    return parsed.data;
  });
}

function parseGrant(raw: string): GrantedToolSet {
  const text = raw.trim();
  if (!text.startsWith('{')) {
    const tools = text.split(/[\s,]+/u).filter((tool) => tool !== '');
    return { tools };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('INVALID_ARGUMENT', `--grant is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = grantedToolSetSchema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('INVALID_ARGUMENT', `--grant is not a valid grant: ${describeZodError(parsed.error)}`);
  }
  return parsed.data;
}

/** The person's language for cron descriptions: Chinese when the terminal's locale says so. */
function terminalLocale(): 'en' | 'zh-CN' {
  const language = process.env.LC_ALL || process.env.LC_MESSAGES || process.env.LANG || '';
  return language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

function printTask(task: ScheduleView, options: { details: boolean }): void {
  const state = task.enabled ? (task.running ? 'running' : 'enabled') : 'disabled';
  printLine(`${task.name}  [${state}]  ${task.id}`);
  if (options.details) {
    printLine(`  when: ${task.cron} (${task.timezone})`);
    printLine(`        ${task.description.en}`);
    printLine(`        ${task.description['zh-CN']}`);
  } else {
    printLine(`  when: ${task.cron} (${task.timezone}) — ${task.description[terminalLocale()]}`);
  }
  if (task.kind === 'agent') printLine(`  does: agent run: ${task.instruction ?? ''}`);
  else printLine(`  does: ${task.steps?.map((step) => step.tool).join(' → ') ?? ''}`);
  if (task.disabled_reason) printLine(`  turned off: ${task.disabled_reason}`);
  const at = (iso: string) => timeIn(iso, task.timezone);
  printLine(
    `  next: ${task.next_run_at ? at(task.next_run_at) : '—'}${task.retry_at ? `   retry: ${at(task.retry_at)}` : ''}${task.deferred ? `   waiting: ${task.deferred}` : ''}`,
  );
  printLine(`  last: ${task.last_run ? formatRun(task.last_run, task.timezone) : 'never ran'}`);
  if (options.details) {
    if (task.kind === 'steps') {
      task.steps?.forEach((step, index) =>
        printLine(`  step ${index + 1}: ${step.tool} ${JSON.stringify(step.input)}`),
      );
    }
    printLine(
      `  grant: ${task.granted_tools ? JSON.stringify(task.granted_tools) : 'none (the project policy applies)'}`,
    );
    printLine(
      `  project: ${task.project}   catch-up: ${task.catch_up}   overlap: ${task.allow_overlap ? 'allowed' : 'no'}   urgent: ${task.urgent ? 'yes' : 'no'}   needs the screen: ${task.needs_screen ? 'yes' : 'no'}`,
    );
    printLine(
      `  retries: ${task.retry_on_failure ? `${task.max_retries}, first after ${task.retry_backoff_seconds} s` : 'off'}   ` +
        `limits per run: ${task.limits.max_steps} steps, ${task.limits.max_tokens} tokens, $${task.limits.max_cost_usd}, ${task.limits.max_wall_seconds} s   ` +
        `daily cap: $${task.daily_cost_cap_usd} ($${task.cost_today_usd.toFixed(4)} spent today)`,
    );
  }
}

/** "2026-11-27 09:00 Asia/Shanghai": a moment as the task's own clock shows it, not a UTC timestamp. */
export function timeIn(iso: string, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${timezone}`;
}

/** A run in one line; its start on the task's clock, or this computer's when the task is not known here. */
function formatRun(run: ScheduleRunView, timezone = Intl.DateTimeFormat().resolvedOptions().timeZone): string {
  const outcome = run.outcome ?? run.state;
  const duration = run.duration_ms === null ? '' : ` ${(run.duration_ms / 1000).toFixed(1)} s`;
  const cost = run.cost_usd > 0 ? ` $${run.cost_usd.toFixed(4)}` : '';
  const trigger = run.trigger === 'cron' ? '' : ` (${run.trigger}${run.attempt > 1 ? ` #${run.attempt}` : ''})`;
  return `${timeIn(run.started_at, timezone)}  ${outcome}${trigger}${duration}${cost}${run.summary ? ` — ${run.summary}` : ''}`;
}

function nonNegativeInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('Give a whole number, 0 or more.');
  return number;
}

function positiveAmount(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('Give an amount above 0, e.g. 0.50.');
  return number;
}
