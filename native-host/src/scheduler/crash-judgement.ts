import { say, type Localized } from '@nextai/shared';

import { sameBoot, type BootMark, type DaemonLife } from './daemon-life.js';
import type { ScheduleRunRecord } from './schedule-store.js';

/** What a starting daemon knows about how the last one ended. */
export interface CrashEvidence {
  /** What the last daemon recorded of its life (daemon-life.ts); undefined when nothing was kept. */
  previous: DaemonLife | undefined;
  /** This machine's boot now. */
  boot: BootMark;
  /** The scheduled runs the last daemon left going, with the names of their tasks. */
  open: readonly { run: ScheduleRunRecord; taskName: string }[];
  /** Agent runs of any kind that were going (queued or running, not waiting for a person). */
  agentRuns: readonly { id: string; source: string | null }[];
}

export interface CrashJudgement {
  /** The last daemon died without stopping cleanly. */
  died: boolean;
  /** The task the death is put down to: its run was the only thing going and no other cause is known. */
  suspect: string | undefined;
  /** Each task with a run going at the death: why the death is not put down to it (empty for the suspect). */
  excuses: ReadonlyMap<string, readonly Localized[]>;
  /** Causes of the death known whatever was going (the machine restarted, the database failing). */
  causes: readonly Localized[];
}

/**
 * Whether the last daemon died, and whether the death is put down to a scheduled task. A task is
 * turned off after three deaths in a row put down to it, so this errs towards not putting a death
 * down to a task: someone who relies on a task running around the clock loses more from a task
 * turned off for deaths it did not cause (a kill from outside, a power cut, a full disk, another
 * run's crash) than from a task that really crashes the daemon getting a few more tries — which
 * it gets only after a back-off that grows with every death during its runs, counted or not.
 *
 * A death is put down to a task only when its run — and nothing else — was going, and no other
 * cause is known: no other task's run and no other agent run (a chat, the heartbeat), the machine
 * did not restart since the daemon started (a power cut, a reboot, a kernel crash), and writing to
 * the database was not failing. A kill from outside while the task alone ran cannot be told from
 * the task crashing the daemon (the kernel's out-of-memory killer sends the same SIGKILL), so it
 * does count: three in a row of those, each with nothing else going, is what turns a task off.
 *
 * Whether the daemon died: its scheduler records a clean stop (daemon-life.ts), and a clean stop
 * suspends the runs going. A daemon that left no record (an older version, a file that could not
 * be written) is judged by its runs alone, as before: one left going, not suspended, means it died
 * during it. A clean stop recorded with runs left going (their suspension could not be written) is
 * a clean stop: they are dealt with as interrupted, not as crashed.
 */
export function judgeCrash(evidence: CrashEvidence): CrashJudgement {
  const { previous, open } = evidence;
  const going = open.filter((entry) => !entry.run.suspended);
  // Runs suspended, none left going: the scheduler's stop ran, even if its record could not say so.
  const stoppedCleanly = previous?.stoppedAt !== undefined || (open.length > 0 && going.length === 0);
  const died = !stoppedCleanly && (previous !== undefined || going.length > 0);
  if (!died) return { died, suspect: undefined, excuses: new Map(), causes: [] };

  const causes: Localized[] = [];
  if (previous && !sameBoot(previous.boot, evidence.boot)) {
    causes.push(
      say(
        'the computer restarted while the daemon ran (a power cut, a reboot or a system crash)',
        '守护进程运行期间电脑重启了（断电、重启或系统崩溃）',
      ),
    );
  }
  if (previous?.storageFault) {
    const { code, since } = previous.storageFault;
    const at = new Date(since).toISOString();
    causes.push(
      say(`the database could not be written (${code}, since ${at})`, `数据库无法写入（${code}，自 ${at} 起）`),
    );
  }

  const names = new Map<string, string>();
  for (const { run, taskName } of going) names.set(run.scheduleId, taskName);
  const ownAgentRuns = new Set(going.map(({ run }) => run.runId));
  const otherAgentRuns = evidence.agentRuns.filter((run) => !ownAgentRuns.has(run.id));
  const excuses = new Map<string, Localized[]>();
  for (const taskId of names.keys()) {
    const reasons = [...causes];
    const others = [...names].filter(([id]) => id !== taskId).map(([, name]) => `"${name}"`);
    if (others.length > 0) {
      const list = others.join(', ');
      reasons.push(say(`runs of other tasks were going too (${list})`, `其他任务的运行也在进行（${list}）`));
    }
    if (otherAgentRuns.length > 0) {
      const list = describeAgentRuns(otherAgentRuns);
      reasons.push(say(`other agent runs were going too (${list.en})`, `其他智能体运行也在进行（${list['zh-CN']}）`));
    }
    excuses.set(taskId, reasons);
  }
  const [only, ...more] = names.keys();
  const suspect = only !== undefined && more.length === 0 && excuses.get(only)?.length === 0 ? only : undefined;
  return { died, suspect, excuses, causes };
}

/** A few agent runs by who started them and their ids ("the heartbeat's run 1f2e…, run 9a8b…"). */
function describeAgentRuns(runs: readonly { id: string; source: string | null }[]): Localized {
  const shown = runs.slice(0, 3);
  const rest = runs.length - shown.length;
  const en = shown.map((run) => `${run.source === 'heartbeat' ? 'the heartbeat’s run' : 'run'} ${run.id}`);
  const zh = shown.map((run) => `${run.source === 'heartbeat' ? '心跳运行' : '运行'} ${run.id}`);
  return say(
    `${en.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`,
    `${zh.join('、')}${rest > 0 ? ` 等另外 ${rest} 个` : ''}`,
  );
}
