/** Exit codes of `nextai`, stable for scripts. */
export const EXIT = {
  OK: 0,
  /** The command ran and failed (a tool error, a write that was refused). */
  FAILURE: 1,
  /** The command line was wrong: unknown option, bad JSON, unknown tool. */
  USAGE: 2,
  /** The daemon is not running and could not be reached or started. */
  DAEMON_UNAVAILABLE: 3,
  /** `nextai daemon`: another daemon already owns this data directory. */
  ALREADY_RUNNING: 4,
  /** `nextai run`: the run was stopped (`nextai runs stop`, an emergency stop) before it finished. */
  STOPPED: 5,
  /**
   * `nextai run`: the run finished without an answer — the model declined, the provider's content
   * filter stopped the answer, or the model said nothing.
   */
  NO_ANSWER: 6,
  /**
   * `nextai daemon`: it stopped because its database file was replaced or removed while it ran;
   * start it again (the service manager does) and it uses the file now there. 75 is sysexits'
   * EX_TEMPFAIL: try again.
   */
  DATABASE_REPLACED: 75,
  /** `nextai run`: Ctrl-C detached from the run, which goes on in the daemon (128 + SIGINT, as shells do). */
  INTERRUPTED: 130,
} as const;
