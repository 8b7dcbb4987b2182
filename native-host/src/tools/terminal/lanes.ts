import fs from 'node:fs';

import { AppError } from '@nextai/shared';

import type { SandboxPlacement } from '../types.js';
import type { CallRequest, CallResult, ShellSession } from './session.js';
import type { ShellSpec } from '../../platform/shells.js';

/** Where a command of a session ran, as bash_execute reports it. */
export type LaneName = 'confined' | 'confined_network' | 'outside' | 'unconfined';

/** At most this many shells per session; the one used longest ago is ended to make room. */
const MAX_LANES = 4;

/**
 * One shell session as the agent sees it (`session_id`), made of one shell per kind of
 * placement — in the sandbox without the network, in it with the network, outside it — because
 * a running process cannot change its sandbox. Each shell keeps its own variables and
 * background jobs; the session's directory follows the agent from one to the next.
 */
export class TerminalSession {
  readonly createdAt = new Date();
  private readonly lanes = new Map<string, { shell: ShellSession; name: LaneName; used: number }>();
  private lastLane: string | undefined;
  private lastCwd: string;
  private uses = 0;
  private killed = false;
  /** Shells ended because the policy no longer allows what their sandbox reaches: why, by shell. */
  private readonly ended = new WeakMap<ShellSession, string>();
  /** What the next call must tell about shells ended between calls. */
  private pending: { shell: ShellSession; notice: string }[] = [];

  constructor(
    readonly id: string,
    readonly shell: ShellSpec,
    private readonly startCwd: string,
    /** Makes the shell for a placement, starting in `cwd`. */
    private readonly open: (placement: SandboxPlacement | undefined, cwd: string) => ShellSession,
    /** Where this session's sandboxed shells keep their shared /tmp (removed with the session). */
    private readonly sandboxTmp?: string,
    /** A folder only the sandbox has (in its own /tmp): the same name outside is another folder. */
    private readonly sandboxOnly?: (dir: string) => boolean,
  ) {
    this.lastCwd = startCwd;
  }

  /** The folder the next command starts in. */
  cwd(): string | undefined {
    const lane = this.lastLane === undefined ? undefined : this.lanes.get(this.lastLane);
    return lane?.shell.cwd() ?? this.lastCwd;
  }

  get isKilled(): boolean {
    return this.killed;
  }

  /** Starts the shell for `placement` now, so that a session that cannot start fails at once. */
  async start(placement: SandboxPlacement | undefined): Promise<void> {
    const { lane } = this.laneFor(placement);
    await lane.shell.start();
  }

  async run(request: CallRequest, placement: SandboxPlacement | undefined): Promise<CallResult & { lane: LaneName }> {
    const { key, lane, evicted, fresh } = this.laneFor(placement);
    const switching = this.lastLane !== undefined && this.lastLane !== key;
    const notices: string[] = [];
    if (evicted) notices.push(evicted);
    if (fresh && this.lanes.size > 1) {
      notices.push(
        `This command ran in another shell of session "${this.id}" (${describeLane(lane.name)}): it started in ` +
          `${this.cwd() ?? this.lastCwd}, without the variables and functions that commands in the session's other shells set.`,
      );
    }
    // The agent's directory goes with it from shell to shell — exactly that folder (read from the
    // kernel, so with no link in it): a sandboxed command swapping it for a link meanwhile must
    // not move an approved command elsewhere.
    let follow = request.workingDir === undefined && switching ? this.cwd() : undefined;
    // A sandboxed shell's /tmp is its own: the same name outside is another folder (one other
    // people can write to). Leaving the sandbox from there starts in the home folder instead.
    const from = this.lastLane === undefined ? undefined : this.lanes.get(this.lastLane)?.name;
    if (follow && lane.name === 'outside' && from?.startsWith('confined') && this.sandboxOnly?.(follow)) {
      notices.push(
        `${follow} is in the sandbox's own /tmp; outside the sandbox this command starts in ${this.startCwd}.`,
      );
      follow = this.startCwd;
    }
    // Shells ended since the last call because the policy narrowed: said once, by the next call.
    notices.unshift(...this.pending.splice(0).map((ended) => ended.notice));
    let result: CallResult;
    try {
      result = await lane.shell.run({ ...request, ...(follow ? { workingDir: follow, exactDir: true } : {}) });
    } catch (error) {
      // A shell that could not start (the sandbox refused) is not kept.
      if (fresh) {
        // (Unless endShells took it out meanwhile, and another call put a new shell in its place.)
        if (this.lanes.get(key) === lane) this.lanes.delete(key);
        await lane.shell.kill();
      }
      const why = this.takeEnded(lane.shell);
      if (why !== undefined) {
        // It waited for its turn in a shell the policy change ended: it never ran there.
        throw new AppError(
          'UNAVAILABLE',
          `The command was not run: ${endedNotice(this.id, lane.name, why)} Run it again; it will start a new shell.`,
          { cause: error, details: { session_id: this.id } },
        );
      }
      throw error;
    }
    const why = this.takeEnded(lane.shell);
    if (why !== undefined) {
      notices.unshift(
        `${endedNotice(this.id, lane.name, why)} It was ended while this command ran, so the command may not ` +
          'have finished; the next command starts a new shell.',
      );
    }
    this.lastLane = key;
    this.lastCwd = lane.shell.cwd() ?? this.lastCwd;
    return { ...result, notices: [...notices, ...result.notices], lane: lane.name };
  }

  /**
   * Ends at once the shells `why` names a reason for (the policy no longer allows what their
   * sandbox reaches): they leave the session, so the next command in the same place starts a new
   * shell, and that call is told why. Resolves, once they are killed, with what was ended.
   */
  async endShells(why: (shell: ShellSession) => string | undefined): Promise<{ lane: LaneName; reason: string }[]> {
    const ended: { shell: ShellSession; lane: LaneName; reason: string }[] = [];
    // Taken out before anything is awaited: no command can start in one of them afterwards.
    for (const [key, lane] of this.lanes) {
      const reason = why(lane.shell);
      if (reason === undefined) continue;
      this.lanes.delete(key);
      this.ended.set(lane.shell, reason);
      this.pending.push({
        shell: lane.shell,
        notice:
          `${endedNotice(this.id, lane.name, reason)} Commands that ran there now run in a new shell: the old ` +
          "one's variables, functions and background jobs are gone.",
      });
      ended.push({ shell: lane.shell, lane: lane.name, reason });
    }
    await Promise.allSettled(ended.map((entry) => entry.shell.kill()));
    return ended.map(({ lane, reason }) => ({ lane, reason }));
  }

  async kill(): Promise<void> {
    this.killed = true;
    const all = [...this.lanes.values()];
    this.lanes.clear();
    this.pending = [];
    await Promise.allSettled(all.map((lane) => lane.shell.kill()));
    if (this.sandboxTmp) fs.rmSync(this.sandboxTmp, { recursive: true, force: true });
  }

  /** Why endShells ended `shell`: a call that was in it says so, instead of the next call. */
  private takeEnded(shell: ShellSession): string | undefined {
    const why = this.ended.get(shell);
    if (why !== undefined) this.pending = this.pending.filter((ended) => ended.shell !== shell);
    return why;
  }

  private laneFor(placement: SandboxPlacement | undefined) {
    const key = laneKey(placement);
    const existing = this.lanes.get(key);
    this.uses += 1;
    if (existing && !existing.shell.isKilled) {
      existing.used = this.uses;
      return { key, lane: existing, fresh: false, evicted: undefined };
    }
    let evicted: string | undefined;
    if (this.lanes.size >= MAX_LANES) {
      const [oldestKey, oldest] = [...this.lanes.entries()].sort((a, b) => a[1].used - b[1].used)[0] ?? [];
      if (oldestKey !== undefined && oldest) {
        this.lanes.delete(oldestKey);
        void oldest.shell.kill();
        evicted = `Session "${this.id}" ended its shell ${describeLane(oldest.name)} to make room (at most ${MAX_LANES} shells per session).`;
      }
    }
    const lane = {
      shell: this.open(placement, this.cwd() ?? this.lastCwd),
      name: laneName(placement),
      used: this.uses,
    };
    this.lanes.set(key, lane);
    return { key, lane, fresh: true, evicted };
  }
}

function laneName(placement: SandboxPlacement | undefined): LaneName {
  if (placement === undefined) return 'unconfined';
  if (placement.mode === 'outside') return 'outside';
  return placement.network === 'full' ? 'confined_network' : 'confined';
}

/** Shells differ by placement, and by the folders a grant narrows the sandbox to. */
function laneKey(placement: SandboxPlacement | undefined): string {
  if (placement === undefined) return 'unconfined';
  if (placement.mode === 'outside') return 'outside';
  const granted = placement.granted ? JSON.stringify([...placement.granted].sort()) : '';
  return `sandbox:${placement.network}:${granted}`;
}

function endedNotice(id: string, lane: LaneName, reason: string): string {
  return (
    `The shell of terminal session "${id}" (${describeLane(lane)}) was closed because the person narrowed what ` +
    `the sandbox may reach (${reason}); their setting applies to commands already running too.`
  );
}

function describeLane(name: LaneName): string {
  switch (name) {
    case 'confined':
      return 'in the sandbox, without the network';
    case 'confined_network':
      return 'in the sandbox, with the network';
    case 'outside':
      return 'outside the sandbox';
    case 'unconfined':
      return 'without a sandbox';
  }
}
