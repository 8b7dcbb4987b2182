/**
 * `value` as one POSIX shell word: in single quotes, with each `'` written as `'\''`. Nothing
 * inside single quotes is special to sh, bash or zsh, so this is the whole rule — and unlike the
 * `shell-quote` package it keeps the empty string an argument (`''`) and a leading `~` literal.
 */
export function posixQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
