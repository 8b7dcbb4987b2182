import type { Localized, SandboxMechanism } from '@nextai/shared';

import type { SandboxProfile } from './profile.js';

/** A command ready to start: the program, its arguments and its whole environment. */
export interface PreparedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export type SandboxStatus =
  | { available: true; mechanism: Exclude<SandboxMechanism, 'none'>; version?: string | undefined }
  | {
      available: false;
      mechanism: SandboxMechanism;
      /** Why no sandbox can start here, for `nextai doctor`, `policy explain` and the approval card. */
      reason: Localized;
      /** What would fix it, when something can. */
      fix?: string | undefined;
    };

export interface PrepareOptions {
  /**
   * The process gets a terminal of its own (a shell session's pty). Otherwise it is put in a
   * new terminal session, so that it cannot type into a terminal it inherited.
   */
  ownTerminal?: boolean;
}

/**
 * One operating system's way of confining a process (docs/ARCHITECTURE.md, "Sandbox first"). The platform
 * picks one (sandbox/select.ts); everything that starts a process for the agent asks it.
 */
export interface Sandbox {
  readonly mechanism: SandboxMechanism;
  /** Whether it can start here; probed once, then remembered (`refresh` probes again). */
  status(options?: { refresh?: boolean }): SandboxStatus;
  /**
   * The command wrapped so that it runs confined by `profile`, with `env` as its environment.
   * Throws SANDBOX_UNAVAILABLE when the sandbox cannot start: a command is never run
   * unconfined instead.
   */
  prepare(
    command: readonly string[],
    profile: SandboxProfile,
    env: Record<string, string>,
    options?: PrepareOptions,
  ): PreparedCommand;
  /**
   * The host pid of the command itself once it runs, given the pid of what was started (the
   * sandbox may put helper processes in between); undefined while it cannot be told yet.
   */
  commandPid(startedPid: number): number | undefined;
}
