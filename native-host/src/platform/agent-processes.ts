import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { AGENT_PROCESS_ENV, type Platform } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { parseProcStat, procTable, type ProcessRow } from './launched-apps.js';

/**
 * The emergency stop's last sweep: every process that still carries the agent's mark is ended,
 * whatever session, group or parent it has now.
 *
 * Everything the daemon starts for the agent — shells of `bash_execute`, apps of `app_launch` —
 * gets `NEXTAI_AGENT_PROCESS=<mark>` in its environment, and whatever it starts inherits it. The
 * stop ends shell sessions and launched apps by their sessions, groups and process trees first;
 * what slipped out of those — a job that called setsid and whose parent then exited (it was
 * re-parented to init), a double-forked daemon, an app launched before the daemon restarted (the
 * registry of launched apps lives in memory) — is found here by the mark in
 * /proc/<pid>/environ: fork passes it on, and setsid or a new parent leave it as it is; only the
 * process itself can drop it (`env -i`, an exec with another environment).
 *
 * The mark names the daemon's data directory, so the stop of one NextAI never ends what another
 * one (another NEXTAI_HOME, a test) started, and it stays the same across restarts. Nothing is
 * ended by pid alone: each process is pinned by its start time (/proc/<pid>/stat field 22), and
 * checked again just before the signal, so a pid reused meanwhile is left alone. The daemon itself
 * and its ancestors are never ended (a daemon started from an agent's shell inherits the mark).
 *
 * What it cannot find: a process that both left the tree (setsid + its parent gone) and dropped
 * the mark. In the sandbox that escapes nothing: ending a shell session kills the sandbox's init,
 * and the kernel ends everything in its PID namespace with it. Outside the sandbox, only a command
 * a person let run there can do it (the same limit as the agent-process check, identity/).
 */

/** The value of NEXTAI_AGENT_PROCESS this daemon gives what it starts for the agent: one per data directory. */
export function agentMarkFor(dataDir: string): string {
  let resolved = path.resolve(dataDir);
  try {
    resolved = fs.realpathSync(resolved);
  } catch {
    // Not made yet: its spelling is stable enough (the daemon makes it before it starts anything).
  }
  return `nx-${createHash('sha256').update(resolved).digest('hex').slice(0, 16)}`;
}

/** Whether an environment block (/proc/<pid>/environ: NUL-separated) holds exactly this mark. */
export function hasAgentMark(environ: string, mark: string): boolean {
  const wanted = `${AGENT_PROCESS_ENV}=${mark}`;
  return environ.split('\0').includes(wanted);
}

/** What the sweep reads of a process (from /proc; faked in tests). */
export interface MarkedProcessFacts {
  rows(): Promise<ProcessRow[]>;
  /** The start time of one pid now, or undefined when it is gone (or a zombie). */
  startOf(pid: number): string | undefined;
  /** Its environment block, or undefined when it cannot be read (another user's, gone). */
  environOf(pid: number): string | undefined;
  /** Its real uid, or undefined when unknown. */
  uidOf(pid: number): number | undefined;
}

export function procMarkedFacts(procRoot = '/proc'): MarkedProcessFacts {
  const table = procTable(procRoot);
  const read = (pid: number, file: string): string | undefined => {
    try {
      return fs.readFileSync(path.join(procRoot, String(pid), file), 'latin1');
    } catch {
      return undefined;
    }
  };
  return {
    rows: () => table.rows(),
    startOf: (pid) => {
      const text = read(pid, 'stat');
      const row = text === undefined ? undefined : parseProcStat(text);
      return row && !row.zombie ? row.start : undefined;
    },
    environOf: (pid) => read(pid, 'environ'),
    uidOf: (pid) => {
      const uid = /^Uid:\s*(\d+)/m.exec(read(pid, 'status') ?? '')?.[1];
      return uid === undefined ? undefined : Number(uid);
    },
  };
}

/**
 * The processes to end, from one listing: those `isMarked` accepts (the mark, the daemon's user),
 * and every live process below any of them (a child that dropped the mark while its parent still
 * runs). Never `self` nor any of its ancestors, nor what is below them only through them.
 */
export function markedTargets(
  rows: readonly ProcessRow[],
  isMarked: (row: ProcessRow) => boolean,
  self: number,
): ProcessRow[] {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const spared = new Set<number>([0, 1]);
  for (let pid: number | undefined = self; pid !== undefined && !spared.has(pid); pid = byPid.get(pid)?.ppid) {
    spared.add(pid);
  }
  const live = rows.filter((row) => !row.zombie && !spared.has(row.pid));
  const found = new Map<number, ProcessRow>();
  for (const row of live) if (isMarked(row)) found.set(row.pid, row);
  const children = new Map<number, ProcessRow[]>();
  for (const row of live) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  const pending = [...found.keys()];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop() as number) ?? []) {
      if (found.has(child.pid)) continue;
      found.set(child.pid, child);
      pending.push(child.pid);
    }
  }
  return [...found.values()];
}

export interface MarkedSweepOptions {
  platform: Platform;
  /** This daemon's mark (agentMarkFor). */
  mark: string;
  facts?: MarkedProcessFacts;
  /** The daemon's pid (default: this process). */
  self?: number;
  /** Only processes of this user (default: the daemon's). */
  uid?: number | undefined;
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  /** How long to wait for the killed to be gone (ms). */
  killWaitMs?: number;
  log?: Logger;
}

export interface MarkedSweepResult {
  /** Processes that carried the mark (or ran below one that did) and have ended. */
  ended: number;
  /** Those still running when the wait was over. */
  still_running: number;
  pids: number[];
}

/** Looks again at most this many times for processes forked while the previous ones were frozen. */
const ROUNDS = 40;
const POLL_MS = 20;

/**
 * Ends every process that carries this daemon's mark, and everything below them. They are frozen
 * first (SIGSTOP, which cannot be caught), looking again until a look finds nothing new: a frozen
 * process forks no more, and stays the parent of what it forked just before, so that is found
 * below it even when it cleared its environment. Then all of them get SIGKILL — no grace: what
 * left its session is not given time to fork again. Linux only (elsewhere there is no /proc to
 * read environments from): resolves with nothing done.
 */
export async function endMarkedProcesses(options: MarkedSweepOptions): Promise<MarkedSweepResult> {
  const facts =
    options.facts ??
    (options.platform === 'linux' && fs.existsSync('/proc/self/environ') ? procMarkedFacts() : undefined);
  if (options.platform !== 'linux' || !facts) return { ended: 0, still_running: 0, pids: [] };
  const self = options.self ?? process.pid;
  const uid = 'uid' in options ? options.uid : process.getuid?.();
  const kill = options.kill ?? ((pid, signal) => process.kill(pid, signal));
  const isMarked = (row: ProcessRow) => {
    const environ = facts.environOf(row.pid);
    if (environ === undefined || !hasAgentMark(environ, options.mark)) return false;
    return uid === undefined || facts.uidOf(row.pid) === uid;
  };
  const send = (pid: number, signal: NodeJS.Signals) => {
    try {
      kill(pid, signal);
      return true;
    } catch {
      // ESRCH: it ended meanwhile. EPERM: not ours to signal (a setuid program), so not ended here.
      return false;
    }
  };
  /** pid → start time of every process frozen. */
  const frozen = new Map<number, string>();
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const targets = markedTargets(await facts.rows(), isMarked, self).filter(
        (row) => frozen.get(row.pid) !== row.start,
      );
      if (targets.length === 0) break;
      for (const row of targets) {
        // The same process as listed (pid and start time), right before the signal.
        if (facts.startOf(row.pid) === row.start && send(row.pid, 'SIGSTOP')) frozen.set(row.pid, row.start);
      }
    }
  } finally {
    // Whatever happened above, nothing is left frozen: a stopped process cannot end or be reused.
    for (const pid of frozen.keys()) send(pid, 'SIGKILL');
  }
  const running = () => [...frozen].filter(([pid, start]) => facts.startOf(pid) === start).map(([pid]) => pid);
  const deadline = performance.now() + (options.killWaitMs ?? 1_000);
  let still = running();
  while (still.length > 0 && performance.now() < deadline) {
    await sleep(POLL_MS);
    still = running();
  }
  if (frozen.size > 0) {
    options.log?.info('the emergency stop ended processes the agent had started outside its sessions and apps', {
      pids: [...frozen.keys()],
    });
  }
  if (still.length > 0) options.log?.warn('processes the agent started could not be ended', { pids: still });
  return { ended: frozen.size - still.length, still_running: still.length, pids: [...frozen.keys()] };
}
