import { say, type Localized } from '@nextai/shared';

/**
 * Characters that make a command look different from what the shell runs: control characters
 * (a carriage return can overwrite a line on screen), bidirectional overrides that reorder text,
 * and invisible characters. Tab and newline are ordinary shell syntax and are allowed.
 */
const HIDDEN: { test: (code: number) => boolean; what: Localized }[] = [
  { test: (code) => code === 0x0d, what: say('a carriage return', '回车符') },
  { test: (code) => code < 0x20 && code !== 0x09 && code !== 0x0a, what: say('a control character', '控制字符') },
  { test: (code) => code === 0x7f || (code >= 0x80 && code <= 0x9f), what: say('a control character', '控制字符') },
  {
    test: (code) => (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069),
    what: say('a bidi override', '双向文本控制符'),
  },
  {
    test: (code) => code === 0x061c || code === 0x200e || code === 0x200f,
    what: say('a direction mark', '文字方向标记'),
  },
  {
    test: (code) =>
      (code >= 0x200b && code <= 0x200d) ||
      code === 0xfeff ||
      code === 0x00ad ||
      code === 0x180e ||
      (code >= 0x2060 && code <= 0x2064),
    what: say('an invisible character', '不可见字符'),
  },
  { test: (code) => code === 0x2028 || code === 0x2029, what: say('a Unicode line separator', 'Unicode 行分隔符') },
  {
    // Spaces that look like a word break but are part of the word for the shell.
    test: (code) =>
      code === 0x00a0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000,
    what: say('a space that is not a word break for the shell', '看似空格、但 shell 不按它分词的字符'),
  },
];

/** Describes the first hidden character in `text` ("a bidi override (U+202E)"), if any. */
export function findHiddenCharacter(text: string): Localized | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Printable ASCII is by far the common case; skip the table for it.
    if (code >= 0x20 && code < 0x7f) continue;
    for (const entry of HIDDEN) {
      if (entry.test(code)) {
        const point = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
        return say(`${entry.what.en} (${point})`, `${entry.what['zh-CN']}（${point}）`);
      }
    }
  }
  return undefined;
}
