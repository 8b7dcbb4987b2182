import fs from 'node:fs';

import type { Platform } from '@nextai/shared';

import { runCommand } from '../../core/subprocess.js';
import { sleep } from '../../core/sleep.js';

/**
 * Finding and ending what a shell session started.
 *
 * A session's shell is a session leader (node-pty calls setsid), and everything it starts keeps
 * that session id unless it calls setsid itself — background jobs, their own children, double-
 * forked daemons, whatever process groups job control gave them. On Linux the session's
 * processes are read from /proc, with every process below one of them (one that called setsid
 * while its parent still runs); one that called setsid and lost its parent is found by the
 * agent's mark at the emergency stop (platform/agent-processes.ts). "What this call started" is
 * those whose start time is not before the call began (kernel clock ticks), so background jobs
 * left by earlier calls survive a time-out of a later one. macOS has no /proc: `ps` gives
 * parents, groups and elapsed times (to the second). Windows has neither sessions nor groups of
 * this kind: the shell's process tree is ended with taskkill and the session restarts.
 */

export interface SessionProcess {
  pid: number;
  /** Linux: start time in clock ticks after boot. */
  startTicks?: number;
  /** macOS: seconds since it started. */
  elapsedSeconds?: number;
}

/**
 * USER_HZ, the unit of /proc/<pid>/stat's start time and /proc/uptime ×100. It is 100 on every
 * architecture Node runs on (sysconf(_SC_CLK_TCK) is fixed by the kernel ABI there).
 */
const LINUX_TICKS_PER_SECOND = 100;

/** Now, in the clock of /proc/<pid>/stat's start time. */
export function linuxTicksNow(): number {
  // "12345.67 …": seconds with two decimals, read as integers so no float rounding moves a tick.
  const match = /^(\d+)\.(\d{2})/.exec(fs.readFileSync('/proc/uptime', 'utf8'));
  if (!match) throw new Error('Unexpected /proc/uptime format.');
  return Number(match[1]) * LINUX_TICKS_PER_SECOND + Number(match[2]);
}

export interface LinuxStat {
  pid: number;
  state: string;
  ppid: number;
  processGroup: number;
  session: number;
  /** The foreground process group of its controlling terminal (-1 without one). */
  foregroundGroup: number;
  startTicks: number;
}

/** Parses /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
export function parseLinuxStat(text: string): LinuxStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  // Fields after the name start at field 3 (state); start time is field 22.
  const field = (number: number) => Number(fields[number - 3]);
  const stat = {
    pid: Number(text.slice(0, open).trim()),
    state: fields[0] ?? '',
    ppid: field(4),
    processGroup: field(5),
    session: field(6),
    foregroundGroup: field(8),
    startTicks: field(22),
  };
  return Number.isInteger(stat.pid) && Number.isInteger(stat.session) && Number.isInteger(stat.startTicks)
    ? stat
    : undefined;
}

/** Live (not zombie) processes of Linux session `sessionId`, read from /proc. */
export function linuxSessionProcesses(sessionId: number, procRoot = '/proc'): LinuxStat[] {
  return linuxProcesses(procRoot).filter((stat) => stat.session === sessionId);
}

/**
 * The live processes of Linux session `sessionId` and every process below one of them (a child
 * that made a session of its own stays below its parent while that parent runs), from one listing.
 */
export function linuxSessionAndBelow(stats: readonly LinuxStat[], sessionId: number): LinuxStat[] {
  const found = new Map<number, LinuxStat>();
  for (const stat of stats) if (stat.session === sessionId) found.set(stat.pid, stat);
  const children = new Map<number, LinuxStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const pending = [...found.keys()];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop() as number) ?? []) {
      if (found.has(child.pid) || child.pid <= 1) continue;
      found.set(child.pid, child);
      pending.push(child.pid);
    }
  }
  return [...found.values()];
}

/** Every live (not zombie) process, read from /proc. */
export function linuxProcesses(procRoot = '/proc'): LinuxStat[] {
  const found: LinuxStat[] = [];
  for (const entry of fs.readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = fs.readFileSync(`${procRoot}/${entry}/stat`, 'utf8');
    } catch {
      // It exited while we looked.
      continue;
    }
    const stat = parseLinuxStat(text);
    if (stat && stat.state !== 'Z' && stat.state !== 'X') found.push(stat);
  }
  return found;
}

export interface MacProcess {
  pid: number;
  ppid: number;
  processGroup: number;
  elapsedSeconds: number;
}

export const MAC_PS_ARGS = ['-A', '-o', 'pid=', '-o', 'ppid=', '-o', 'pgid=', '-o', 'etime='];

/** `ps -A -o pid= -o ppid= -o pgid= -o etime=` on macOS. */
export function parseMacPs(output: string): MacProcess[] {
  const result: MacProcess[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*$/.exec(line);
    if (!match) continue;
    const elapsed = parseElapsed(match[4] as string);
    if (elapsed === undefined) continue;
    result.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      processGroup: Number(match[3]),
      elapsedSeconds: elapsed,
    });
  }
  return result;
}

/** `[[dd-]hh:]mm:ss` as seconds. */
export function parseElapsed(value: string): number | undefined {
  const match = /^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)$/.exec(value);
  if (!match) return undefined;
  const [days, hours, minutes, seconds] = [match[1], match[2], match[3], match[4]].map((part) => Number(part ?? 0));
  return (((days as number) * 24 + (hours as number)) * 60 + (minutes as number)) * 60 + (seconds as number);
}

/**
 * The processes under `shellPid` on macOS: its descendants, and every member of a process group
 * one of them leads (job control gives each job its own group; a double-forked daemon keeps it).
 */
export function macSessionProcesses(table: readonly MacProcess[], shellPid: number): MacProcess[] {
  const children = new Map<number, MacProcess[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const descendants = new Map<number, MacProcess>();
  const pending = [shellPid];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop() as number) ?? []) {
      if (descendants.has(child.pid) || child.pid === shellPid) continue;
      descendants.set(child.pid, child);
      pending.push(child.pid);
    }
  }
  const groups = new Set([...descendants.values()].map((entry) => entry.processGroup));
  for (const entry of table) {
    if (entry.pid !== shellPid && groups.has(entry.processGroup) && entry.processGroup !== shellPid) {
      descendants.set(entry.pid, entry);
    }
  }
  return [...descendants.values()];
}

export const windowsTreeKillArgs = (pid: number) => ['/PID', String(pid), '/T', '/F'];

/** Sends `signal` to each pid, ignoring the ones already gone. */
function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): number {
  let sent = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
      sent += 1;
    } catch (error) {
      // ESRCH: it ended by itself in between. EPERM: it became someone else's (setuid): leave it.
      if (!['ESRCH', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
  return sent;
}

export interface ProcessControl {
  /** A point in time to pass to killStartedSince (taken when a call starts). */
  callStart(): number;
  /**
   * Kills what the session's shell started since `since` (not the shell itself), looking again
   * until nothing new is found (a process may fork while it is being killed). `beforeKill` runs
   * each time something is about to be killed. Resolves with the pids signalled.
   */
  killStartedSince(shellPid: number, since: number, beforeKill?: () => void): Promise<number[]>;
  /** Kills everything in the session, the shell included. */
  killSession(shellPid: number): Promise<void>;
  /**
   * Signals the job the shell is waiting for right now: the terminal's foreground process group,
   * never the shell's own. SIGINT there is Ctrl-C: a job that dies of it makes bash drop the rest
   * of the sourced file, where one killed by SIGKILL lets the shell go on with the next command.
   */
  signalForeground?(shellPid: number, signal: NodeJS.Signals): void;
  /** Whether killStartedSince leaves the shell running (else the session must restart). */
  readonly keepsShell: boolean;
}

const KILL_ROUNDS = 40;
const KILL_ROUND_PAUSE_MS = 5;

export function linuxProcessControl(procRoot = '/proc'): ProcessControl {
  /**
   * SIGKILLs the matching processes, then looks again for ones forked meanwhile, until a look finds
   * nothing new. A process with SIGKILL pending can no longer fork (the kernel aborts the fork),
   * so once a look finds only processes already signalled, nothing more can appear. Those may
   * still be dying (not yet zombies): waiting for that is not needed and cost tens of
   * milliseconds on a busy machine.
   */
  // One look at /proc serves every session that asks before it is taken: an emergency stop ends
  // many sessions at once, and each look costs milliseconds of this thread.
  let nextLook: Promise<LinuxStat[]> | undefined;
  const look = () =>
    (nextLook ??= new Promise((resolve) => {
      setImmediate(() => {
        nextLook = undefined;
        resolve(linuxProcesses(procRoot));
      });
    }));
  const killWhere = async (
    shellPid: number,
    keep: (stat: LinuxStat) => boolean,
    beforeKill?: () => void,
    signal: NodeJS.Signals = 'SIGKILL',
  ) => {
    const looked = new Set<number>();
    const killed: number[] = [];
    for (let round = 0; round < KILL_ROUNDS; round += 1) {
      const targets = linuxSessionAndBelow(await look(), shellPid).filter(
        (stat) => !keep(stat) && !looked.has(stat.pid),
      );
      if (targets.length === 0) break;
      beforeKill?.();
      for (const stat of targets) {
        looked.add(stat.pid);
        if (signalAll([stat.pid], signal) > 0) killed.push(stat.pid);
      }
    }
    return killed;
  };
  return {
    keepsShell: true,
    callStart: linuxTicksNow,
    signalForeground: (shellPid, signal) => {
      let stat: LinuxStat | undefined;
      try {
        stat = parseLinuxStat(fs.readFileSync(`${procRoot}/${shellPid}/stat`, 'utf8'));
      } catch {
        return;
      }
      const group = stat?.foregroundGroup ?? -1;
      if (group > 0 && group !== stat?.processGroup) signalAll([-group], signal);
    },
    killStartedSince: (shellPid, since, beforeKill) =>
      killWhere(shellPid, (stat) => stat.pid === shellPid || stat.startTicks < since, beforeKill),
    killSession: async (shellPid) => {
      // Frozen first (SIGSTOP), then killed: a process that is killed while its child runs leaves
      // that child to init, out of reach of the tree below the session when it called setsid.
      const frozen = await killWhere(shellPid, () => false, undefined, 'SIGSTOP');
      signalAll(frozen, 'SIGKILL');
      // What was not found frozen (it ended meanwhile, or slipped in between): killed as before.
      await killWhere(shellPid, () => false);
    },
  };
}

export function macProcessControl(): ProcessControl {
  const list = async (shellPid: number) =>
    macSessionProcesses(parseMacPs((await runCommand('ps', MAC_PS_ARGS, { timeoutMs: 5_000 })).stdout), shellPid);
  return {
    keepsShell: true,
    callStart: () => Date.now(),
    killStartedSince: async (shellPid, since, beforeKill) => {
      // Counted once each, however many rounds a process takes to die.
      const killed = new Set<number>();
      for (let round = 0; round < KILL_ROUNDS; round += 1) {
        // Elapsed times are whole seconds: one more second keeps nothing of this call alive.
        const limit = Math.ceil((Date.now() - since) / 1000) + 1;
        const targets = (await list(shellPid)).filter((entry) => entry.elapsedSeconds <= limit);
        if (targets.length === 0) break;
        beforeKill?.();
        for (const entry of targets) if (signalAll([entry.pid], 'SIGKILL') > 0) killed.add(entry.pid);
        await sleep(KILL_ROUND_PAUSE_MS);
      }
      return [...killed];
    },
    killSession: async (shellPid) => {
      signalAll(
        (await list(shellPid)).map((entry) => entry.pid),
        'SIGKILL',
      );
      signalAll([shellPid], 'SIGKILL');
    },
  };
}

export function windowsProcessControl(): ProcessControl {
  const killTree = async (shellPid: number) => {
    try {
      await runCommand('taskkill', windowsTreeKillArgs(shellPid), { timeoutMs: 10_000 });
    } catch {
      // taskkill fails when the shell is gone already; node-pty's kill below ends it otherwise.
      signalAll([shellPid], 'SIGKILL');
    }
  };
  return {
    keepsShell: false,
    callStart: () => Date.now(),
    killStartedSince: async (shellPid) => {
      await killTree(shellPid);
      return [shellPid];
    },
    killSession: killTree,
  };
}

export function processControlFor(platform: Platform): ProcessControl {
  if (platform === 'windows') return windowsProcessControl();
  if (platform === 'macos') return macProcessControl();
  return linuxProcessControl();
}
