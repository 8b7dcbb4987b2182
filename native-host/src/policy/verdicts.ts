import type { Localized, RiskLevel } from '@nextai/shared';

/**
 * What a guard says about one thing an input touches (a path, a URL, an app). `block` means no
 * mode, template or approval can let the call through; otherwise `risk` is the floor it raises
 * the call's risk to.
 */
export interface GuardVerdict {
  block: boolean;
  risk: RiskLevel;
  layer: 'protected_files' | 'filesystem' | 'network' | 'blocked_app';
  reason: Localized;
}

/** What the shell analyser asks the guards about paths and URLs it finds in a command. */
export interface ShellGuards {
  /** A path a command reads or writes; undefined when there is nothing to say. */
  checkPath(path: string, access: 'read' | 'write', cwd: string): GuardVerdict | undefined;
  /** A URL a command fetches or sends to; undefined when there is nothing to say. */
  checkUrl(url: string): GuardVerdict | undefined;
}
