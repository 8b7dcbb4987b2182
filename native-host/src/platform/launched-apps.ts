import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Platform } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { execCommand, type CommandSpec, type Exec } from './command-exec.js';

/**
 * The apps the agent started (`app_launch`), kept by the daemon so the emergency stop can end
 * them (a launched app that outlives the stop could lift it seconds later by typing into the
 * person's terminal). Apps start detached — on Linux and macOS each is the leader of a process
 * group (and session) of its own, and an app in the sandbox is bubblewrap, which takes everything
 * in its PID namespace with it when it dies — so ending an app means signalling its group and
 * every process below it: SIGTERM, then SIGKILL after a short grace. On Windows `taskkill /T /F`
 * ends the process tree.
 *
 * A pid alone is never trusted: each app is remembered with its start time (Linux
 * /proc/<pid>/stat, macOS `ps -o lstart`), and a process with that pid but another start time
 * is someone else's, left alone. On Windows the image name is compared instead.
 */

export interface LaunchedApp {
  pid: number;
  /** The name app_launch was given (for the report, and Windows' image-name check). */
  name: string;
  /** When that process started, as the process table says (undefined until known). */
  start?: string | undefined;
  /** When it was registered (ms, performance clock): a pid without a start time is trusted only briefly. */
  addedAt?: number | undefined;
  /** Processes of its group seen when it was registered, by pid → start time (its leader may have ended already). */
  seen?: Map<number, string> | undefined;
}

/** One process as the process table shows it. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  /** Process group. */
  pgid: number;
  /** Session (Linux; absent where the listing has none). */
  sid?: number | undefined;
  /** An opaque start time: the same pid with another start time is another process. */
  start: string;
  zombie: boolean;
}

/** Where the rows come from: /proc on Linux, one `ps` listing on macOS (faked in tests). */
export interface ProcessTable {
  rows(): Promise<ProcessRow[]>;
  /** The start time of one pid, at once (Linux), so an app is pinned the moment it is spawned. */
  startOf?(pid: number): string | undefined;
}

/** What the stop reports about the apps. */
export interface AppsEnded {
  /** Apps that were still running when the stop came and have ended. */
  ended: number;
  /** Apps that were still running when the stop came and are still running (could not be ended). */
  still_running: number;
  /** The names of the apps ended. */
  names: string[];
}

export interface LaunchedAppsOptions {
  platform: Platform;
  /** Whether the emergency stop is on: an app that starts while it is (a launch already under way) is ended at once. */
  stopped?: () => boolean;
  processes?: ProcessTable;
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  /** Runs tasklist/taskkill on Windows. */
  exec?: Exec;
  log?: Logger;
  /** SIGTERM → SIGKILL grace, and how long to wait for the killed to be gone (ms). */
  graceMs?: number;
  killWaitMs?: number;
}

/** Apps remembered at most (the oldest, surely long gone, are forgotten first). */
const MAX_APPS = 1000;
const POLL_MS = 20;

export class LaunchedApps {
  private readonly apps: LaunchedApp[] = [];
  private readonly table: ProcessTable | undefined;
  private readonly kill: (pid: number, signal: NodeJS.Signals) => void;
  private readonly exec: Exec;

  constructor(private readonly options: LaunchedAppsOptions) {
    this.table =
      options.processes ??
      (options.platform === 'linux' ? procTable() : options.platform === 'macos' ? psTable(options.exec) : undefined);
    this.kill = options.kill ?? ((pid, signal) => process.kill(pid, signal));
    this.exec = options.exec ?? execCommand;
  }

  /**
   * Remembers an app the moment its process exists. While the emergency stop is on, it is ended
   * at once instead (its launch was under way when the stop came).
   */
  add(pid: number, name: string): void {
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
    const app: LaunchedApp = { pid, name, start: this.table?.startOf?.(pid), addedAt: performance.now() };
    this.apps.push(app);
    if (this.apps.length > MAX_APPS) this.apps.splice(0, this.apps.length - MAX_APPS);
    if (app.start === undefined && this.table) {
      // macOS: its start time from the next listing. Linux: it ended already — what it left in its
      // group is remembered by start time, so the group is still known to be its own later.
      void this.table
        .rows()
        .then((rows) => {
          app.start ??= rows.find((row) => row.pid === pid)?.start;
          app.seen = new Map(
            rows
              .filter((row) => !row.zombie && (row.pgid === pid || row.sid === pid))
              .map((row) => [row.pid, row.start]),
          );
        })
        .catch(() => undefined);
    }
    if (this.options.stopped?.()) {
      this.options.log?.warn('an app started while the emergency stop was on; ending it', { pid, name });
      void this.endAll().catch(() => undefined);
    }
  }

  /** The apps remembered (whether still running or not). */
  list(): readonly LaunchedApp[] {
    return this.apps;
  }

  /**
   * Ends every app remembered and everything it started: SIGTERM to each app's process group and
   * every process in it or below it, SIGKILL to what is left after `graceMs`. Resolves once all
   * are gone or `killWaitMs` after the SIGKILL. Apps that had already ended are not counted.
   */
  async endAll(): Promise<AppsEnded> {
    if (this.options.platform === 'windows') return this.endAllWindows();
    if (!this.table) return { ended: 0, still_running: 0, names: [] };
    const graceMs = this.options.graceMs ?? 500;
    const killWaitMs = this.options.killWaitMs ?? 300;
    const apps = [...this.apps];
    const tracked = new Map<LaunchedApp, Map<number, string>>();
    let rows = await this.table.rows();
    for (const app of apps) {
      const found = membersOf(app, rows, app.seen ?? new Map());
      if (found.size > 0) tracked.set(app, found);
    }
    // Forgotten now: whatever happens below, the stop has dealt with them.
    this.apps.splice(0, this.apps.length, ...this.apps.filter((app) => !apps.includes(app)));
    if (tracked.size === 0) return { ended: 0, still_running: 0, names: [] };

    const signalAll = (signal: NodeJS.Signals) => {
      for (const [app, members] of tracked) {
        if (members.size === 0) continue;
        // The group first (it reaches members that started between two listings), then each one.
        if (ownership(app, rows, members).group) this.send(-app.pid, signal);
        for (const pid of members.keys()) this.send(pid, signal);
      }
    };
    const refresh = async () => {
      rows = await this.table!.rows();
      for (const [app, members] of tracked) tracked.set(app, membersOf(app, rows, members));
    };
    const alive = () => [...tracked.values()].some((members) => members.size > 0);
    const waitGone = async (ms: number) => {
      const deadline = performance.now() + ms;
      while (alive() && performance.now() < deadline) {
        await sleep(POLL_MS);
        await refresh();
      }
    };

    signalAll('SIGTERM');
    await refresh();
    await waitGone(graceMs);
    if (alive()) {
      signalAll('SIGKILL');
      await refresh();
      await waitGone(killWaitMs);
    }
    const ended = [...tracked].filter(([, members]) => members.size === 0).map(([app]) => app.name);
    const still = [...tracked].filter(([, members]) => members.size > 0);
    for (const [app, members] of still) {
      this.options.log?.warn('an app the agent started could not be ended', {
        pid: app.pid,
        name: app.name,
        remaining: [...members.keys()],
      });
    }
    return { ended: ended.length, still_running: still.length, names: ended };
  }

  private send(pid: number, signal: NodeJS.Signals): void {
    try {
      this.kill(pid, signal);
    } catch {
      // ESRCH: gone already; EPERM: not ours to signal (and so not one of the agent's).
    }
  }

  /** Windows: each app's process tree with `taskkill /T /F`, when the pid still runs the image it was given. */
  private async endAllWindows(): Promise<AppsEnded> {
    const apps = this.apps.splice(0, this.apps.length);
    const results = await Promise.all(
      apps.map(async (app) => {
        const listing = await this.exec(tasklistCommand(app.pid), { timeoutMs: 5_000 }).catch(() => undefined);
        const image = listing ? parseTasklist(listing.stdout) : undefined;
        if (!image) return 'gone' as const;
        if (!sameImage(image, app.name)) return 'gone' as const; // the pid is another program's now
        const killed = await this.exec(taskkillTreeCommand(app.pid), { timeoutMs: 5_000 }).then(
          () => true,
          () => false,
        );
        return killed ? ('ended' as const) : ('running' as const);
      }),
    );
    const names = apps.filter((_, index) => results[index] === 'ended').map((app) => app.name);
    return { ended: names.length, still_running: results.filter((result) => result === 'running').length, names };
  }
}

/** How long a registered pid whose start time is not known yet is trusted to be the app (macOS: until `ps` answers). */
const TRUST_WITHOUT_START_MS = 10_000;

const live = (row: ProcessRow | undefined): row is ProcessRow =>
  row !== undefined && !row.zombie && row.pid !== process.pid && row.pid > 1;

/**
 * Whether the process with the app's pid is the app (`leader`), and whether the process group /
 * session with that id is the app's (`group`). A group or session id cannot be reused while any
 * member lives, so the group is the app's while its leader is (same start time), or while a
 * process seen in it before (same start time) still is in it, or when the leader ended and no other
 * process has its pid.
 */
function ownership(
  app: LaunchedApp,
  rows: ProcessRow[],
  known: Map<number, string>,
): { leader: boolean; group: boolean } {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const current = byPid.get(app.pid);
  const trusted =
    app.start !== undefined || (app.addedAt !== undefined && performance.now() - app.addedAt < TRUST_WITHOUT_START_MS);
  // The app's own process (perhaps ended and not yet reaped: a zombie still holds its pid).
  const sameAsApp = current !== undefined && (app.start !== undefined ? current.start === app.start : trusted);
  const leader = live(current) && sameAsApp;
  const knownInGroup = [...known].some(([pid, start]) => {
    const row = byPid.get(pid);
    return live(row) && row.start === start && (row.pgid === app.pid || row.sid === app.pid);
  });
  const group = sameAsApp || knownInGroup || (current === undefined && trusted);
  return { leader, group };
}

/**
 * The live processes of `app`: its process group and session (when they are its own, see
 * ownership), and every process below any of them (which catches children that made groups of
 * their own), plus those seen before that still run (a child whose parent ended was re-parented
 * out of the tree). Nothing when the app's pid now belongs to another process.
 */
export function membersOf(app: LaunchedApp, rows: ProcessRow[], known: Map<number, string>): Map<number, string> {
  const byPid = new Map(rows.map((row) => [row.pid, row]));
  const found = new Map<number, string>();
  // Seen before and still the same process.
  for (const [pid, start] of known) {
    const row = byPid.get(pid);
    if (live(row) && row.start === start) found.set(pid, start);
  }
  const owned = ownership(app, rows, known);
  const leader = byPid.get(app.pid);
  if (owned.leader && leader) found.set(leader.pid, leader.start);
  if (owned.group) {
    for (const row of rows) {
      if (live(row) && (row.pgid === app.pid || row.sid === app.pid)) found.set(row.pid, row.start);
    }
  }
  // Everything below them.
  const children = new Map<number, ProcessRow[]>();
  for (const row of rows) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  const pending = [...found.keys()];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop() as number) ?? []) {
      if (live(child) && !found.has(child.pid)) {
        found.set(child.pid, child.start);
        pending.push(child.pid);
      }
    }
  }
  return found;
}

/** Linux: /proc/<pid>/stat of every process (fields after the parenthesised name, which may hold anything). */
export function procTable(procRoot = '/proc'): ProcessTable {
  const read = (pid: number | string): ProcessRow | undefined => {
    let text: string;
    try {
      text = fs.readFileSync(path.join(procRoot, String(pid), 'stat'), 'latin1');
    } catch {
      return undefined;
    }
    return parseProcStat(text);
  };
  return {
    rows: async () => {
      let names: string[];
      try {
        names = fs.readdirSync(procRoot);
      } catch {
        return [];
      }
      const rows: ProcessRow[] = [];
      for (const name of names) {
        if (!/^\d+$/.test(name)) continue;
        const row = read(name);
        if (row) rows.push(row);
      }
      return rows;
    },
    startOf: (pid) => read(pid)?.start,
  };
}

export function parseProcStat(text: string): ProcessRow | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // state ppid pgrp session … starttime is field 22 of stat(5), the 20th after the name.
  const [state, ppid, pgid, sid] = fields;
  const start = fields[19];
  if (!Number.isInteger(pid) || start === undefined) return undefined;
  return {
    pid,
    ppid: Number(ppid),
    pgid: Number(pgid),
    sid: Number(sid),
    start,
    zombie: state === 'Z' || state === 'X',
  };
}

/** macOS: every process with its parent, group, state and start time, in one `ps`. */
export function psListingCommand(): CommandSpec {
  return { command: 'ps', args: ['-A', '-o', 'pid=,ppid=,pgid=,stat=,lstart='] };
}

export function parsePsListing(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    rows.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      zombie: (match[4] as string).startsWith('Z'),
      start: match[5] as string,
    });
  }
  return rows;
}

export function psTable(exec: Exec = execCommand): ProcessTable {
  return {
    rows: async () => {
      const result = await exec(psListingCommand(), { timeoutMs: 5_000 }).catch(() => undefined);
      return result ? parsePsListing(result.stdout) : [];
    },
  };
}

/** Windows: the one process with that pid, as CSV without a header ("notepad.exe","1234",…). */
export function tasklistCommand(pid: number): CommandSpec {
  return { command: 'tasklist.exe', args: ['/FI', `PID eq ${pid}`, '/FO', 'CSV', '/NH'] };
}

/** The image name tasklist shows for the pid, or undefined when there is no such process. */
export function parseTasklist(text: string): string | undefined {
  const match = /^"([^"]+)","(\d+)"/m.exec(text.trim());
  return match?.[1];
}

/** Windows: the process and every process it started, without asking (the stop does not wait for "save changes?"). */
export function taskkillTreeCommand(pid: number): CommandSpec {
  return { command: 'taskkill.exe', args: ['/PID', String(pid), '/T', '/F'] };
}

/** Whether a tasklist image name ("Code.exe") is the program app_launch was given ("code", "C:\…\Code.exe"). */
export function sameImage(image: string, launched: string): boolean {
  const stem = (value: string) =>
    (value.split(/[\\/]/).pop() ?? value)
      .trim()
      .toLowerCase()
      .replace(/\.exe$/, '');
  return stem(image) === stem(launched);
}
