import type { Localized } from '@nextai/shared';

import type { PathRole } from './invocation.js';

/**
 * What a command would need from an operating-system sandbox, gathered while it is analysed. The
 * sandbox itself enforces confinement; these facts decide whether the command can run confined
 * (and with network or not), or needs to leave — and what inside the writable folders it could
 * destroy, which confinement does not make harmless.
 */

/** Something a command needs that no sandbox gives it. */
export type EscapeKind =
  /** sudo, su, doas, pkexec: raised privileges (the sandbox forbids gaining any). */
  | 'privileges'
  /** Signals processes outside (the sandbox has its own process namespace). */
  | 'host_processes'
  /** Lists the machine's processes (inside, only its own are visible). */
  | 'process_list'
  /** Services, packages, containers, mounts, scheduled jobs: the system outside. */
  | 'system'
  /** Raw disks and other devices (the sandbox has only null, zero, random, tty). */
  | 'devices'
  /** Windows, the clipboard, notifications, opening files in apps: the person's desktop. */
  | 'desktop'
  /** Keys, agents and credential stores the sandbox hides (ssh, gpg, password stores). */
  | 'secrets'
  /** A repository's git config or hooks, kept read-only because git runs them later. */
  | 'git_config';

export interface PathEffect {
  /** Absolute target; undefined when the path is only known at run time. */
  target?: string | undefined;
  /** An absolute glob pattern, when the word is one. */
  pattern?: string | undefined;
  role: PathRole;
  excerpt: string;
}

/**
 * Something the command destroys inside whatever folder it names: a whole tree (`rm -r`,
 * `find -delete`, `mv` away, `git clean`), or part of what is in it (`git reset --hard` throws
 * away uncommitted changes, `find -name '*.pyc' -delete` what a filter picks). Confinement does not make this harmless: the sandbox lets it happen in
 * the writable folders.
 */
export interface DestroyEffect {
  target?: string | undefined;
  pattern?: string | undefined;
  scope: 'tree' | 'part';
  how: Localized;
  excerpt: string;
}

export interface NeedEffect {
  kind: EscapeKind;
  why: Localized;
  excerpt: string;
}

/** At most this many paths are kept; a command with more counts as touching paths unknown. */
const MAX_PATHS = 256;

export class ShellEffects {
  readonly paths: PathEffect[] = [];
  /** More paths than were kept: the rest count as computed (unknown). */
  overflow = false;
  readonly needs: NeedEffect[] = [];
  readonly destroys: DestroyEffect[] = [];
  /** Why it needs the network, once per reason. */
  readonly network = new Map<string, { why: Localized; excerpt: string }>();
  /** It runs code NextAI cannot see (an unknown program, a project script, inline code). */
  unseenCode: { why: Localized; excerpt: string } | undefined;
  /** It runs what it downloads (`curl … | sh`, a downloaded file made executable and run). */
  runsDownload: { excerpt: string } | undefined;

  path(effect: PathEffect): void {
    if (this.paths.length >= MAX_PATHS) {
      this.overflow = true;
      return;
    }
    this.paths.push(effect);
  }

  destroy(effect: DestroyEffect): void {
    if (this.destroys.length < MAX_PATHS) this.destroys.push(effect);
    else this.overflow = true;
  }

  need(kind: EscapeKind, why: Localized, excerpt: string): void {
    if (this.needs.some((need) => need.kind === kind && need.why.en === why.en)) return;
    this.needs.push({ kind, why, excerpt });
  }

  needsNetwork(why: Localized, excerpt: string): void {
    if (!this.network.has(why.en)) this.network.set(why.en, { why, excerpt });
  }

  runsUnseenCode(why: Localized, excerpt: string): void {
    this.unseenCode ??= { why, excerpt };
  }
}
