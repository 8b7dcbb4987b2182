import { say, type Localized, type RiskLevel } from '@nextai/shared';
import type { Node } from 'web-tree-sitter';

import type { GuardVerdict, ShellGuards } from '../verdicts.js';
import { runInvocation } from './commands/index.js';
import type { ShellEffects } from './effects.js';
import { findHiddenCharacter } from './hidden-text.js';
import type { Stdin } from './invocation.js';
import { MAX_COMMAND_BYTES, assertShellAnalyzerReady, parseBash } from './parser.js';
import { extend, joinZh, localized } from './phrases.js';
import { AnalysisState, AnalysisTimeout, shorten, type ShellFinding } from './state.js';
import { walkProgram } from './walk.js';

export interface ShellAnalysis {
  /** The riskiest thing any part of the command could be. */
  risk: RiskLevel;
  findings: ShellFinding[];
  /** A guard said no (a write into NextAI's own files, a blocked domain). */
  blocked?: { layer: GuardVerdict['layer']; reason: Localized };
  /** Command names found, for display. */
  commands: string[];
  /** False when the command could not be parsed (or the parse timed out); the risk is then critical. */
  parsed: boolean;
  /** What a sandbox would have to give it (effects.ts). */
  effects: ShellEffects;
  /**
   * False when the analysis failed or ran out of time: `effects` then holds only part of what the
   * command does. Nothing more is needed for that: what it missed can only fail inside the
   * sandbox (or go unseen there, as with any code NextAI cannot check), and outside, the
   * analysis's critical risk asks a person.
   */
  complete: boolean;
}

export interface AnalyzeOptions {
  cwd: string;
  homeDir: string;
  /** The whole analysis, parsing included, must finish within this; otherwise it fails closed. */
  timeoutMs?: number;
}

/** Generous for a person's command, tight enough that a hostile one cannot stall a decision. */
const DEFAULT_TIMEOUT_MS = 250;
/** `sh -c` inside `sh -c` inside …: deeper than this is not analysed. */
const MAX_DEPTH = 8;

/**
 * Works out how risky a shell command is: every command it could run — in chains, pipelines,
 * subshells, substitutions, `sh -c` strings, `eval`, wrappers — and every file and address it
 * touches, asking the guards about those. Whatever cannot be proven harmless counts as the
 * riskiest thing it could be. Synchronous once `initShellAnalyzer()` has finished.
 */
export function analyzeShellCommand(command: string, guards: ShellGuards, options: AnalyzeOptions): ShellAnalysis {
  assertShellAnalyzerReady();
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const st = new AnalysisState(guards, options.homeDir, options.cwd, deadline);
  st.invoke = (inv) => runInvocation(inv, st);
  // Nested text that does not parse records why itself; the outer analysis goes on.
  st.analyzeText = (text, excerpt, stdin) => {
    analyzeText(text, st, stdin, excerpt);
  };
  let parsed = true;
  let complete = true;
  try {
    parsed = analyzeText(command, st, { kind: 'terminal' }, undefined);
  } catch (error) {
    complete = false;
    if (error instanceof AnalysisTimeout) {
      st.raise('critical', 'analysing the command took too long (fails closed)');
    } else {
      // A bug in a rule must not let a command through: report it and fail closed.
      const message = error instanceof Error ? error.message : String(error);
      st.raise(
        'critical',
        say(
          `the analyser failed on this command (${message}); fails closed`,
          `分析器处理这条命令时出错（${message}），无法确认安全，按最危险处理`,
        ),
      );
    }
  }
  const result: ShellAnalysis = {
    risk: st.risk,
    findings: st.findings(),
    commands: [...st.commands],
    parsed,
    effects: st.effects,
    complete: complete && parsed,
  };
  if (st.blocked) result.blocked = st.blocked;
  return result;
}

/**
 * Parses and walks `text` (the command itself, or text it runs such as `sh -c '…'`). Returns
 * false when it could not be parsed; the reason is recorded as a critical finding.
 */
function analyzeText(text: string, st: AnalysisState, stdin: Stdin, excerpt: string | undefined): boolean {
  if (st.depth >= MAX_DEPTH) {
    st.raise(
      'critical',
      say(
        `nests shell commands more than ${MAX_DEPTH} levels deep (fails closed)`,
        `shell 命令嵌套超过 ${MAX_DEPTH} 层（无法确认安全，按最危险处理）`,
      ),
      excerpt,
    );
    return true;
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_COMMAND_BYTES) {
    st.raise(
      'critical',
      say(
        `is ${bytes} bytes long, over the ${MAX_COMMAND_BYTES}-byte limit for analysis (fails closed)`,
        `命令长达 ${bytes} 字节，超过了 ${MAX_COMMAND_BYTES} 字节的分析上限（无法确认安全，按最危险处理）`,
      ),
    );
    return false;
  }
  const hidden = findHiddenCharacter(text);
  if (hidden) {
    st.raise(
      'critical',
      say(
        `contains ${hidden.en}, which can hide what really runs`,
        joinZh('包含', hidden['zh-CN'], '，可能掩盖实际运行的内容'),
      ),
      excerpt ?? text,
    );
  }
  const result = parseBash(text, st.deadline);
  if (!result.ok) {
    const why = extend(result.reason, ' (fails closed)', '（无法确认安全，按最危险处理）');
    st.raise('critical', why, excerpt ?? text);
    st.effects.runsUnseenCode(localized(why), excerpt ?? text);
    return false;
  }
  st.depth += 1;
  try {
    const root = result.tree.rootNode;
    checkLineContinuations(text, root, st);
    checkHistoryExpansion(text, root, st);
    walkProgram(root, st, stdin);
  } finally {
    st.depth -= 1;
    result.tree.delete();
  }
  return true;
}

/**
 * bash joins `r\<newline>m` into `rm`, but the grammar treats a backslash-newline as a gap
 * between words. Where one sits inside a word (no space either side) outside quotes, the
 * analysis would see other words than bash runs, so it fails closed.
 */
function checkLineContinuations(text: string, root: Node, st: AnalysisState): void {
  let at = text.indexOf('\\\n');
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + 2];
    const joinsWords =
      before !== undefined && after !== undefined && !/[\s;&|()<>]/.test(before) && !/[\s;&|()<>]/.test(after);
    if (joinsWords) {
      const node = root.descendantForIndex(at, at + 1);
      const quoted =
        node &&
        ['string_content', 'raw_string', 'heredoc_body', 'heredoc_content', 'comment', 'ansi_c_string'].includes(
          node.type,
        );
      if (!quoted) {
        st.raise(
          'critical',
          'splits a word across lines with a backslash, which the analyser cannot follow',
          shorten(text),
        );
        return;
      }
    }
    at = text.indexOf('\\\n', at + 2);
  }
}

/**
 * Nodes the check below leaves alone: single quotes and comments, which history expansion does
 * not reach, and double-quoted text and heredoc bodies, whose value is then treated as unknown
 * (words.ts, walk.ts) — a commit message with "feat!:" is data, not a command.
 */
const LITERAL_NODES = new Set([
  'raw_string',
  'ansi_c_string',
  'comment',
  'string_content',
  'heredoc_body',
  'heredoc_content',
]);

/**
 * An interactive bash (a terminal session) replaces `!!`, `!-2`, `!rm`, `!$` and `^old^new`
 * with earlier commands before it parses anything, so the text analysed is not what runs.
 * The analyser cannot know which session a command goes to, so these fail closed. bash
 * leaves `!` alone before a blank, `=`, `(` or `"`, in `$!`, `${!x}` and `[!…]`.
 */
function checkHistoryExpansion(text: string, root: Node, st: AnalysisState): void {
  if (/(?:^|\n)[ \t]*\^[^\n^]*\^/.test(text)) {
    st.raise(
      'critical',
      'starts with ^old^new, which an interactive shell turns into an earlier command',
      shorten(text),
    );
    return;
  }
  for (let at = text.indexOf('!'); at >= 0; at = text.indexOf('!', at + 1)) {
    const next = text[at + 1];
    const before = text[at - 1];
    if (next === undefined || /[\s=("]/.test(next)) continue;
    if (before === '\\' || before === '$' || before === '[' || (before === '{' && text[at - 2] === '$')) continue;
    const node = root.descendantForIndex(at, at + 1);
    if (node && LITERAL_NODES.has(node.type)) continue;
    st.raise(
      'critical',
      'uses history expansion (!…), which in an interactive shell inserts earlier commands',
      shorten(text),
    );
    return;
  }
}
