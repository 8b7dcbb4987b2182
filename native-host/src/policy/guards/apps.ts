import { say, type Localized, type SecurityConfig } from '@nextai/shared';

export interface AppVerdict {
  allowed: boolean;
  reason?: Localized;
}

/**
 * Names the blocked apps also show under in other languages (macOS localises app names and
 * window titles), keyed by the lower-case English name.
 */
export const APP_NAME_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'keychain access': ['钥匙串访问', '鑰匙圈存取', 'キーチェーンアクセス', '키체인 접근'],
  passwords: ['密码', '密碼', 'パスワード', '암호'],
  seahorse: ['Passwords and Keys', '密码和密钥'],
};

/** Endings of launchable files that are not part of the app's name. */
const EXECUTABLE_EXTENSION = /\.(?:app|exe|appimage|desktop|lnk|bat|cmd|msi|flatpakref)$/i;

/** Separators apps put between the document and their name in a window title. */
const TITLE_SEPARATOR = /\s+[-:]\s+|:\s+|\s*[–—|·•»]\s*/u;

/**
 * Decides which apps the agent may launch, switch to, close or look at, by app name, path or
 * window title: password managers and keychains are off limits by default (`blocked_apps`).
 *
 * The rule: both sides are compared as words (letters and digits, case-insensitive, NFKC), and
 * a blocked name matches when some *segment* of the input begins with its words. Segments are
 * the pieces of a window title between separators (` - `, ` — `, ` | `, `: `…) and, for a
 * reverse-DNS id or file name without spaces, the pieces between dots. A path counts by its last
 * name, an executable without its extension. So "Keychain Access — login", "1Password 7",
 * "/Applications/1Password.app", "KeePassXC.exe", "org.keepassxc.KeePassXC" and
 * "Passwords.kdbx - KeePassXC" are blocked, while "notes about passwords app" and "How to manage
 * passwords - Google Chrome" are not: a blocked name in the middle of a sentence is someone
 * writing about it, not the app.
 */
export class AppGuard {
  private readonly blocked: { name: string; words: string[][] }[];

  constructor(security: SecurityConfig) {
    this.blocked = security.blocked_apps.map((name) => ({
      name,
      words: [name, ...(APP_NAME_ALIASES[name.toLowerCase()] ?? [])].map(words).filter((list) => list.length > 0),
    }));
  }

  check(nameOrTitle: string): AppVerdict {
    if (typeof nameOrTitle !== 'string' || nameOrTitle.trim().length === 0) return { allowed: true };
    const segments = appSegments(nameOrTitle).map(words);
    for (const { name, words: candidates } of this.blocked) {
      if (candidates.some((wanted) => segments.some((segment) => startsWithWords(segment, wanted)))) {
        return {
          allowed: false,
          reason: say(
            `"${nameOrTitle}" is ${name}, a blocked app (security.blocked_apps): NextAI does not open, operate or ` +
              'look at it. To allow it, remove it from security.blocked_apps.',
            `“${nameOrTitle}”是 ${name}，属于禁止的应用（security.blocked_apps）：NextAI 不会打开、操作或查看它。` +
              '如要允许，请从 security.blocked_apps 中移除它。',
          ),
        };
      }
    }
    return { allowed: true };
  }
}

/** The pieces of an app name, path or window title that an app's name can begin. */
export function appSegments(nameOrTitle: string): string[] {
  let text = nameOrTitle.normalize('NFKC').trim();
  // `/Applications/1Password.app/`, `C:\Program Files\KeePassXC\KeePassXC.exe`, `~/bin/x`.
  if (/^(?:[a-zA-Z]:[\\/]|[\\/~.])/.test(text)) {
    text =
      text
        .split(/[\\/]+/)
        .filter((part) => part.length > 0)
        .at(-1) ?? text;
  }
  text = text.replace(EXECUTABLE_EXTENSION, '');
  const segments = text.split(TITLE_SEPARATOR).filter((part) => part.trim().length > 0);
  const dotted = segments.filter((part) => !/\s/.test(part) && part.includes('.')).flatMap((part) => part.split('.'));
  return [...segments, ...dotted];
}

function words(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function startsWithWords(segment: string[], wanted: string[]): boolean {
  return wanted.length <= segment.length && wanted.every((word, index) => segment[index] === word);
}
