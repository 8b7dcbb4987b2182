/**
 * Characters that make a command look different from what the shell runs: control characters
 * (a carriage return can overwrite a line on screen), bidirectional overrides that reorder text,
 * and invisible characters. Tab and newline are ordinary shell syntax and are allowed.
 */
const HIDDEN: { test: (code: number) => boolean; what: string }[] = [
  { test: (code) => code === 0x0d, what: 'a carriage return' },
  { test: (code) => code < 0x20 && code !== 0x09 && code !== 0x0a, what: 'a control character' },
  { test: (code) => code === 0x7f || (code >= 0x80 && code <= 0x9f), what: 'a control character' },
  { test: (code) => (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069), what: 'a bidi override' },
  { test: (code) => code === 0x061c || code === 0x200e || code === 0x200f, what: 'a direction mark' },
  {
    test: (code) =>
      (code >= 0x200b && code <= 0x200d) ||
      code === 0xfeff ||
      code === 0x00ad ||
      code === 0x180e ||
      (code >= 0x2060 && code <= 0x2064),
    what: 'an invisible character',
  },
  { test: (code) => code === 0x2028 || code === 0x2029, what: 'a Unicode line separator' },
  {
    // Spaces that look like a word break but are part of the word for the shell.
    test: (code) =>
      code === 0x00a0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000,
    what: 'a space that is not a word break for the shell',
  },
];

/** Describes the first hidden character in `text` ("a bidi override (U+202E)"), if any. */
export function findHiddenCharacter(text: string): string | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // Printable ASCII is by far the common case; skip the table for it.
    if (code >= 0x20 && code < 0x7f) continue;
    for (const entry of HIDDEN) {
      if (entry.test(code)) {
        return `${entry.what} (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
      }
    }
  }
  return undefined;
}
