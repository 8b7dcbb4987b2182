import { say, type Localized, type Platform, type ToolResources } from '@nextai/shared';

import type { Desktop } from '../../platform/desktop.js';

import {
  EMPTY_LINE,
  applyOp,
  applyPaste,
  applyText,
  bounded,
  isUnknown,
  type Applied,
  type Candidate,
} from './command-line.js';
import { keyAction, prefixedKey, type KeyContext } from './line-keys.js';
import { isTerminalWindow, type WindowIdentity } from './terminals.js';

/**
 * Keyboard input into terminal windows, judged as the commands it runs (docs/ARCHITECTURE.md, "Every channel
 * is judged"): typing a command into a terminal must not get past what `bash_execute` of it would
 * meet. For each terminal window it keeps the command line being composed there (command-line.ts);
 * a call that would submit it — Enter, ctrl+m, a typed or pasted line break — carries the command
 * lines it runs to the policy, which judges them as `bash_execute` would. Right before the keys are
 * sent, `confirm` checks that the window, the line and the clipboard are still what was judged.
 */

/** The window in front, as the desktop reports it. */
export interface FocusedWindow extends WindowIdentity {
  id: string;
  title: string;
}

export interface TerminalInputOptions {
  platform: Platform;
  /** The window with the keyboard focus; null when none has it. Throws when it cannot be told. */
  focusedWindow(): Promise<FocusedWindow | null>;
  /** The clipboard's text; undefined when it holds no text. Throws when it cannot be read. */
  clipboardText(): Promise<string | undefined>;
}

/** One way what a call runs in a terminal may read. */
export type SubmittedScript = { text: string } | { unknown: Localized };

export interface TerminalSubmission {
  /** What the call does, for people: "presses Enter in the terminal xterm". */
  action: Localized;
  scripts: SubmittedScript[];
}

export interface KeyboardJudgement {
  /** What it runs in a terminal; undefined when it runs nothing there. */
  submission?: TerminalSubmission | undefined;
  /** Right before the keys are sent: why what was judged no longer holds, if it does not. */
  confirm(): Promise<Localized | undefined>;
  /** After the handler: the keys were sent, not sent at all, or perhaps in part. */
  settle(outcome: 'sent' | 'not_sent' | 'partly'): void;
}

/** Terminal windows remembered at most; the oldest is let go. */
const MAX_WINDOWS = 64;
/** More ways a call's submissions combine than this, and each line is judged on its own. */
const MAX_SCRIPTS = 16;

interface LineState {
  lines: Candidate[];
  /** Changes whenever keys may have reached the window since. */
  version: number;
  /** Keys are being sent to it now. */
  busy: boolean;
}

/** Stands for a window that could not be told: it may be a terminal, the worst case. */
const UNKNOWN_WINDOW = '(unknown)';

export class TerminalInput {
  private readonly windows = new Map<string, LineState>();

  constructor(private readonly options: TerminalInputOptions) {}

  /**
   * What a call that types text or presses keys (its declared `typed` or `keys`) would do in the
   * window in front; undefined for a call that does neither.
   */
  async judge(resources: Pick<ToolResources, 'typed' | 'keys'>): Promise<KeyboardJudgement | undefined> {
    const { typed, keys } = resources;
    if (typed === undefined && keys === undefined) return undefined;
    const judged = await this.front();
    const confirmFocus = async (): Promise<Localized | undefined> => {
      const now = await this.front();
      if (now.key === judged.key || (!now.terminal && !judged.terminal)) return undefined;
      return say(
        `The window in front changed after this call was decided (it was ${judged.label.en}, now ${now.label.en}); nothing was sent. Look at the screen again and repeat the call.`,
        `这次调用决定之后，前台窗口变了（原来是${judged.label['zh-CN']}，现在是${now.label['zh-CN']}）；什么都没有发送。请重新查看屏幕后再调用一次。`,
      );
    };
    if (!judged.terminal) return { confirm: confirmFocus, settle: () => undefined };

    const state = this.windows.get(judged.key) ?? { lines: [...EMPTY_LINE], version: 0, busy: false };
    const context: KeyContext = { platform: this.options.platform, terminal: judged.app };
    const prefixed = (line: Parameters<typeof prefixedKey>[0], character: string) =>
      prefixedKey(line, character, context);
    let readings: Applied[];
    let action: Localized;
    let pasted: { text: string | undefined } | undefined;
    if (typed !== undefined) {
      readings = [applyText(state.lines, typed, prefixed)];
      action = say(`types into the terminal ${judged.label.en}`, `向终端${judged.label['zh-CN']}输入文字`);
    } else {
      const pressed = keys ?? [];
      const chord = pressed.join('+');
      const key = keyAction(pressed, context);
      action = say(
        `presses ${chord} in the terminal ${judged.label.en}`,
        `在终端${judged.label['zh-CN']}中按 ${chord}`,
      );
      if (key.kind === 'op') {
        readings = [applyOp(state.lines, key.op, { resets: key.resets })];
      } else {
        pasted = { text: key.source === 'clipboard' ? await this.clipboard() : undefined };
        const why =
          key.source === 'clipboard'
            ? say('it pastes the clipboard, which NextAI could not read', '它粘贴剪贴板内容，而 NextAI 无法读取剪贴板')
            : say(
                'it pastes the selected text (the X primary selection), which NextAI cannot read',
                '它粘贴选中的文字（X 主选区），NextAI 无法读取它',
              );
        readings = [applyPaste(state.lines, pasted.text, why, prefixed)];
        if (key.otherwise) readings.push(applyOp(state.lines, key.otherwise));
      }
    }
    const next = bounded(readings.flatMap((reading) => reading.lines));
    const scripts = dedupeScripts(readings.flatMap(scriptsOf));
    const version = state.version;
    let confirmed = false;
    return {
      ...(scripts.length > 0 ? { submission: { action, scripts } } : {}),
      confirm: async () => {
        const moved = await confirmFocus();
        if (moved) return moved;
        const current = this.windows.get(judged.key);
        if ((current?.version ?? 0) !== version || current?.busy) {
          return say(
            `Other keyboard input reached ${judged.label.en} after this call was decided; nothing was sent. Repeat the call.`,
            `这次调用决定之后，${judged.label['zh-CN']}收到了其他键盘输入；什么都没有发送。请再调用一次。`,
          );
        }
        if (pasted && pasted.text !== (await this.clipboard())) {
          return say(
            'The clipboard changed after this paste was decided; nothing was sent. Repeat the call.',
            '这次粘贴决定之后，剪贴板内容变了；什么都没有发送。请再调用一次。',
          );
        }
        confirmed = true;
        this.remember(judged.key, { lines: state.lines, version: version + 1, busy: true });
        return undefined;
      },
      settle: (outcome) => {
        if (!confirmed) return;
        confirmed = false;
        const current = this.windows.get(judged.key);
        const lines =
          outcome === 'sent'
            ? next
            : outcome === 'partly'
              ? bounded([
                  ...(current?.lines ?? state.lines),
                  { unknown: say('sending the keys failed part way', '按键发送到一半时失败了') },
                ])
              : (current?.lines ?? state.lines);
        this.remember(judged.key, { lines, version: version + 2, busy: false });
      },
    };
  }

  /** The window in front: its key, whether typing there composes a command line, and a label for people. */
  private async front(): Promise<{ key: string; terminal: boolean; app: string; label: Localized }> {
    let window: FocusedWindow | null;
    try {
      window = await this.options.focusedWindow();
    } catch (error) {
      // It cannot be told: the worst case is a terminal.
      const message = (error as Error).message;
      return {
        key: UNKNOWN_WINDOW,
        terminal: true,
        app: '',
        label: say(
          `(NextAI could not tell which window has the focus: ${message})`,
          `（NextAI 无法判断哪个窗口有焦点：${message}）`,
        ),
      };
    }
    if (!window) return { key: '', terminal: false, app: '', label: say('no window', '没有窗口') };
    const title = window.title.length > 60 ? `${window.title.slice(0, 60)}…` : window.title;
    const name = `${window.app}${title ? ` "${title}"` : ''}`;
    return { key: window.id, terminal: isTerminalWindow(window), app: window.app, label: say(name, `“${name}”`) };
  }

  private async clipboard(): Promise<string | undefined> {
    try {
      return (await this.options.clipboardText()) ?? '';
    } catch {
      return undefined; // Unreadable: the paste is judged as text NextAI cannot see.
    }
  }

  private remember(key: string, state: LineState): void {
    this.windows.delete(key);
    this.windows.set(key, state);
    if (this.windows.size > MAX_WINDOWS) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
  }
}

/** The tracker on a desktop adapter: the focused window from its window list, the clipboard as it reads it. */
export function terminalInputOn(desktop: Pick<Desktop, 'windows' | 'clipboard'>, platform: Platform): TerminalInput {
  return new TerminalInput({
    platform,
    focusedWindow: async () =>
      desktop.windows.focusedWindow
        ? desktop.windows.focusedWindow()
        : ((await desktop.windows.listWindows()).find((window) => window.focused) ?? null),
    clipboardText: async () => (await desktop.clipboard.read()).text,
  });
}

/**
 * The command lines a reading submits, as scripts: the lines of one call run one after the other
 * in the same shell (`cd /etc` then `rm passwd` is judged where it runs), each combination of
 * candidates one script.
 */
function scriptsOf(applied: Applied): SubmittedScript[] {
  const events = applied.submitted;
  const combinations = events.reduce((count, event) => count * event.length, 1);
  if (events.length === 0) return [];
  if (combinations > MAX_SCRIPTS) {
    return events.flatMap((event) => event.map((line) => (isUnknown(line) ? line : { text: line.text })));
  }
  let scripts: { lines: string[]; unknown?: Localized | undefined }[] = [{ lines: [] }];
  for (const event of events) {
    scripts = scripts.flatMap((script) =>
      event.map((line) =>
        isUnknown(line)
          ? { lines: script.lines, unknown: script.unknown ?? line.unknown }
          : { lines: [...script.lines, line.text], unknown: script.unknown },
      ),
    );
  }
  return scripts.map((script) => (script.unknown ? { unknown: script.unknown } : { text: script.lines.join('\n') }));
}

function dedupeScripts(scripts: SubmittedScript[]): SubmittedScript[] {
  const seen = new Set<string>();
  return scripts.filter((script) => {
    const key = 'text' in script ? `t:${script.text}` : `u:${script.unknown.en}`;
    if (seen.has(key) || ('text' in script && script.text.trim() === '')) return false;
    seen.add(key);
    return true;
  });
}
