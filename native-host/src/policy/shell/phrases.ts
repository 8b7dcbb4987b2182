import type { Localized } from '@nextai/shared';

/**
 * What the shell analyser says about a command, keyed by its English phrase, with the Chinese the
 * side panel shows on the approval card (issue #6). A phrase the analyser raises must be a key
 * here, so a missing translation fails the type check.
 */
const SHELL_PHRASES = {} satisfies Record<string, string>;

/** A phrase of the catalog; sentences with values in them are built with `say` instead. */
// TODO(#6): narrow to `keyof typeof SHELL_PHRASES` once every phrase the analyser raises is in the catalog.
export type ShellPhrase = string;

export function shellPhrase(phrase: ShellPhrase): Localized {
  return { en: phrase, 'zh-CN': (SHELL_PHRASES as Record<string, string>)[phrase] ?? phrase };
}
