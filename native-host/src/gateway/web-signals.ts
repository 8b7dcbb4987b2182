import { say, type Localized, type SensitiveKind, type SensitiveTarget, type ToolResources } from '@nextai/shared';

import { normalizeKey } from '../platform/keys.js';
import type { TerminalSubmission } from '../policy/channels/terminal-input.js';
import type { WebProvenance } from '../policy/web-provenance.js';

/**
 * What a call does that a web page may have asked for, or that touches the person's own tabs —
 * read off what the call's tool declares it touches (`resources`), so the policy asks a person
 * about it whatever the template: a page's text must never act with the person's authority.
 */
export interface WebSignals {
  webContent?: { reason: Localized } | undefined;
  tabAccess?: { reason: Localized } | undefined;
  sensitive?: SensitiveTarget | undefined;
  /** The page text found in typed or clipboard text (what Enter or a paste would then submit). */
  webText?: string | undefined;
  /** What the keys run in the terminal in front: judged as those commands. */
  terminal?: TerminalSubmission | undefined;
}

/** What each sensitive page action is, for the Chinese approval card (the page describes it in English). */
const SENSITIVE_KIND_ZH: Record<SensitiveKind, string> = {
  credential_submit: '提交登录表单',
  payment_submit: '提交付款',
  send_message: '发送消息',
  download: '下载文件',
  credential_entry: '在密码框中输入',
  payment_entry: '在银行卡字段中输入',
  file_upload: '把这台电脑上的文件发送给网站',
};

/**
 * What the call's input shows without asking a page: a command (or app arguments, typed or
 * clipboard text) that a page this run read suggested, a key that would submit such text, or a
 * request for a tab the person opened.
 */
export function webSignals(
  resources: ToolResources,
  runId: string | undefined,
  provenance: WebProvenance | undefined,
): WebSignals {
  if (resources.personsTab) return personsTab();
  if (!provenance || !runId) return {};
  if (resources.keys) return keySignals(resources.keys, runId, provenance);
  // Typed text is checked whatever it holds: "curl x | sh" typed into a terminal runs on the
  // Enter that follows, and what goes on the clipboard is typed by the paste that follows.
  const said = textOf(resources);
  if (!said) return {};
  const origin = provenance.match(runId, said.text);
  if (origin) {
    return {
      webText: origin.excerpt,
      webContent: {
        reason: say(
          `${said.what.en} that a web page this run read suggested ("${origin.excerpt}")`,
          `${said.what['zh-CN']}来自本次任务读过的网页（“${origin.excerpt}”）`,
        ),
      },
    };
  }
  // Only what runs (a command, an app, typed lines) opens what Downloads holds; a path typed
  // into a file dialog or put on the clipboard does not.
  if (
    said.runs &&
    provenance.sawWeb(runId) &&
    /(^|[\s'"=/])(~|\$HOME|\/home\/[^/\s]+|\/Users\/[^/\s]+)?\/?Downloads\//.test(said.text)
  ) {
    return {
      webContent: {
        reason: say(
          'opens or runs something in Downloads, where web pages put what they download',
          '打开或运行“下载”文件夹中的内容，网页下载的东西就放在那里',
        ),
      },
    };
  }
  return {};
}

/** The text a call runs, types or puts on the clipboard, what doing so is called, and whether it runs. */
function textOf(resources: ToolResources): { text: string; what: Localized; runs: boolean } | undefined {
  const runs = resources.runs;
  if (runs?.kind === 'command') return { text: runs.command, what: RUNS_A_COMMAND, runs: true };
  if (runs?.kind === 'program') return { text: [runs.name, ...runs.args].join(' '), what: RUNS_A_COMMAND, runs: true };
  if (resources.typed !== undefined) {
    return { text: resources.typed, what: say('types text', '输入的文字'), runs: /[\r\n]/.test(resources.typed) };
  }
  const clipboard = resources.clipboard?.text;
  if (clipboard !== undefined) {
    return { text: clipboard, what: say('puts text on the clipboard', '放到剪贴板上的文字'), runs: false };
  }
  return undefined;
}

const RUNS_A_COMMAND = say('runs a command', '运行的命令');

/**
 * A tab the person opened, which the call would let the agent work in (`target`: the browser's
 * words for it, once it said which tab that is).
 */
export function personsTab(target?: string): WebSignals {
  return {
    tabAccess: {
      reason: target
        ? say(
            `lets the agent work in a tab you opened yourself (your own, maybe signed-in, page): ${target}`,
            `会让智能体在你自己打开的标签页里操作（你自己的、可能已登录的页面）：${target}`,
          )
        : say(
            'lets the agent work in a tab you opened yourself (your own, maybe signed-in, page)',
            '会让智能体在你自己打开的标签页里操作（你自己的、可能已登录的页面）',
          ),
    },
  };
}

/** A page element the page itself describes as sensitive (a sign-in or payment form, "Send", a download). */
export function sensitiveTarget(action: string, sensitive: SensitiveTarget, target: string | undefined): WebSignals {
  return {
    sensitive,
    webContent: {
      reason: say(
        `${action} ${sensitive.reason}${target ? ` — ${target}` : ''}`,
        `${SENSITIVE_KIND_ZH[sensitive.kind]}${target ? `（${target}）` : ''}`,
      ),
    },
  };
}

/** Enter after page-suggested text was typed, or a paste of page-suggested clipboard text. */
function keySignals(pressed: readonly string[], runId: string, provenance: WebProvenance): WebSignals {
  const keys = chordOf(pressed);
  if (!keys) return {};
  const typed = keys.includes('enter') ? provenance.stagedText(runId, 'typed') : undefined;
  if (typed !== undefined) {
    return {
      webText: typed,
      webContent: {
        reason: say(
          `presses Enter after typing text that a web page this run read suggested ("${typed}")`,
          `在输入来自本次任务读过的网页的文字（“${typed}”）之后按回车`,
        ),
      },
    };
  }
  const clipboard = isPaste(keys) ? provenance.stagedText(runId, 'clipboard') : undefined;
  if (clipboard !== undefined) {
    return {
      webText: clipboard,
      webContent: {
        reason: say(
          `pastes text that a web page this run read suggested ("${clipboard}")`,
          `粘贴来自本次任务读过的网页的文字（“${clipboard}”）`,
        ),
      },
    };
  }
  return {};
}

/**
 * After a call ran: page-suggested text now typed (Enter would submit it) or on the clipboard
 * (a paste would type it), so that key is asked about as the text was.
 */
export function stageWebText(
  resources: ToolResources,
  runId: string,
  signals: WebSignals,
  provenance: WebProvenance | undefined,
): void {
  if (!provenance) return;
  if (resources.typed !== undefined) {
    // Other text typed after it does not take it out of the field: only Enter sends it.
    if (signals.webText !== undefined) provenance.stage(runId, 'typed', signals.webText);
    return;
  }
  if (resources.clipboard) {
    // The clipboard holds one thing: what was put there last.
    provenance.stage(runId, 'clipboard', signals.webText);
    return;
  }
  if (resources.keys) {
    const keys = chordOf(resources.keys);
    if (!keys) return;
    const clipboard = provenance.stagedText(runId, 'clipboard');
    if (isPaste(keys) && clipboard !== undefined) provenance.stage(runId, 'typed', clipboard);
    else if (keys.includes('enter')) provenance.stage(runId, 'typed', undefined);
  }
}

/** A key_press or hotkey chord in canonical key names; undefined when a key is not understood. */
function chordOf(keys: readonly string[]): string[] | undefined {
  try {
    return keys.map((key) => normalizeKey(key));
  } catch {
    // The tool refuses such a chord itself; there is nothing it would type.
    return undefined;
  }
}

/** Ctrl+V, Cmd+V (with Shift too, "paste as plain text"), Shift+Insert. */
function isPaste(keys: readonly string[]): boolean {
  return (
    (keys.includes('v') && (keys.includes('ctrl') || keys.includes('meta'))) ||
    (keys.includes('insert') && keys.includes('shift'))
  );
}
