import type { Localized } from '../i18n.js';
import type { RiskLevel, ToolSpec } from './define-tool.js';

/**
 * What one call touches, read off its (validated) input by the tool's own declaration: the files,
 * addresses, apps and windows, what it starts or types. Pure data, no judgement — the daemon's
 * policy walks it and puts each part before its guard (files → file guard, URLs → domain guard,
 * apps → app guard, what it runs → shell analyser and sandbox plan, what it types → the terminal
 * channel), so no tool reaches a handler with a path, URL or command line nobody checked
 * (docs/ARCHITECTURE.md, "Every channel is judged").
 */
export interface ToolResources {
  /** Files and folders it reads or changes, as the input names them. */
  readonly files?: readonly FileUse[] | undefined;
  /** Web addresses it opens or fetches. */
  readonly urls?: readonly string[] | undefined;
  /** Apps or windows it acts on, by app name, window id or (part of a) window title. */
  readonly apps?: readonly string[] | undefined;
  /** What it starts; where the platform has a sandbox, that runs in it. */
  readonly runs?: StartedProcess | undefined;
  /** Text typed into the window in front: a line break in it submits what was typed. */
  readonly typed?: string | undefined;
  /** Keys pressed together in the window in front. */
  readonly keys?: readonly string[] | undefined;
  /** It replaces what is on the clipboard (`text`: when that is text), which a paste then types. */
  readonly clipboard?: { readonly text?: string | undefined } | undefined;
  /**
   * It acts on an element of a page (`action`: what it does to it), which the page describes
   * before the policy decides: a sign-in or payment form, a "Send" button, a download.
   */
  readonly pageTarget?: { readonly action: string } | undefined;
  /** It asks to work in a tab the person opened themselves: they approve each time. */
  readonly personsTab?: boolean | undefined;
  /** What the input itself makes riskier than the tool's default, and why (no guard needed to see it). */
  readonly risks?: readonly DeclaredRisk[] | undefined;
}

/**
 * What a call does to a file or folder, in the words the reasons use. `uploads`: sent to a web
 * page — the daemon reads it for the browser once the policy allowed the path.
 */
export type FileVerb = 'reads' | 'searches' | 'watches' | 'writes' | 'edits' | 'creates' | 'deletes' | 'uploads';

export interface FileUse {
  /** As the input gives it: absolute, relative to the home folder, or with `~`. */
  readonly path: string;
  readonly access: 'read' | 'write';
  readonly verb: FileVerb;
  /** false: the entry itself is judged, not what a link there points to (deleting removes the link). */
  readonly followFinal?: boolean | undefined;
  /** The whole content written there, held to the file-size limit. */
  readonly content?: string | undefined;
  /** Gone for good, past the trash. */
  readonly permanent?: boolean | undefined;
}

/** What the agent asks of the sandbox for what it starts; the person decides. */
export interface SandboxAsk {
  /** It needs the network although nothing NextAI knows says so. */
  readonly network?: boolean | undefined;
  /** It asks to run with the person's full access, and why. */
  readonly outside?: { readonly justification?: string | undefined } | undefined;
}

export type StartedProcess =
  /** A shell command line, run in a terminal session (`session`: which one; the default when absent). */
  | {
      readonly kind: 'command';
      readonly command: string;
      readonly session?: string | undefined;
      /** Where it runs, relative to the session's current directory. */
      readonly workingDir?: string | undefined;
      readonly ask: SandboxAsk;
    }
  /** A program, by name or path, with its arguments. */
  | { readonly kind: 'program'; readonly name: string; readonly args: readonly string[]; readonly ask: SandboxAsk }
  /** A terminal session created (`shell`: the shell it starts), listed or ended; nothing runs in it yet. */
  | { readonly kind: 'session'; readonly shell?: string | undefined };

export interface DeclaredRisk {
  readonly risk: RiskLevel;
  readonly reason: Localized;
}

/** A tool that touches nothing the policy guards: no file, address, app or window, starts and types nothing. */
const NO_RESOURCES: ToolResources = Object.freeze({});

/** For a tool that touches nothing: `resources: touchesNothing`. */
export const touchesNothing = (): ToolResources => NO_RESOURCES;

/** What a call with this (validated) input touches, as the tool declares it. */
export function resourcesOf(tool: ToolSpec, input: Record<string, unknown>): ToolResources {
  return tool.resources(input);
}
