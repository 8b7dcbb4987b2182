import { computedWord, literalWord, type Word } from './words.js';

/** What a command's options look like, GNU getopt style. */
export interface OptionSpec {
  /** Short option letters that take a value (`-o FILE`, `-oFILE`). */
  short?: string;
  /** Short option letters that take no value. */
  flags?: string;
  /** Short option letters whose value may only be attached (`sed -i.bak`, `perl -i`). */
  attached?: string;
  /** Long options (without `--`) that take a value (`--output FILE`, `--output=FILE`). */
  long?: readonly string[];
  /** Long options that take no value (a value may still be attached with `=`). */
  longFlags?: readonly string[];
  /** Options end at the first operand: wrappers, where everything after is the command to run. */
  stopAtOperand?: boolean;
  /** Long options may be shortened to a unique prefix (getopt_long and git accept `--upload-p`). */
  abbreviations?: boolean;
  /** Short options such as nice's `-5` or kill's `-9`: a dash and digits is a flag. */
  numericFlags?: boolean;
}

export interface ParsedOption {
  /** `-o` or `--output` (the full name when an abbreviation was given). */
  name: string;
  value: Word | undefined;
  /** The option is in the spec. */
  known: boolean;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: Word[];
  /** Options the spec does not list. */
  unknown: string[];
  /** A computed word stood where an option could be: it might be any option. */
  computedOption: boolean;
}

export function parseOptions(args: readonly Word[], spec: OptionSpec): ParsedArgs {
  const result: ParsedArgs = { options: [], operands: [], unknown: [], computedOption: false };
  const long = spec.long ?? [];
  const longFlags = spec.longFlags ?? [];
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    const text = word.value ?? word.text;
    if (word.value === '--') {
      result.operands.push(...args.slice(index + 1));
      return result;
    }
    const looksLikeOption = text.startsWith('-') && text !== '-';
    if (!looksLikeOption || word.pattern) {
      if (word.value === undefined && !looksLikeOption) result.computedOption ||= !spec.stopAtOperand;
      // `-{r,}f` or `{-r,x}` expands to options the spec cannot see.
      if (word.pattern && /^[-{]/.test(text)) result.computedOption = true;
      if (spec.stopAtOperand) {
        result.operands.push(...args.slice(index));
        return result;
      }
      result.operands.push(word);
      index += 1;
      continue;
    }
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const given = text.slice(2, equals >= 0 ? equals : undefined);
      const name = resolveLong(given, long, longFlags, spec.abbreviations ?? true);
      const takesValue = name !== undefined && long.includes(name);
      let value: Word | undefined;
      if (equals >= 0) {
        value = word.value === undefined ? computedWord(text.slice(equals + 1)) : literalWord(text.slice(equals + 1));
      } else if (takesValue) {
        value = args[index + 1];
        index += 1;
      }
      if (name === undefined) result.unknown.push(`--${given}`);
      result.options.push({ name: `--${name ?? given}`, value, known: name !== undefined });
      index += 1;
      continue;
    }
    if (spec.numericFlags && /^-\d+$/.test(text)) {
      result.options.push({ name: text, value: undefined, known: true });
      index += 1;
      continue;
    }
    // A cluster of short options: `-rf`, `-oFILE`, `-qO-`.
    let at = 1;
    while (at < text.length) {
      const letter = text[at] as string;
      if (spec.attached?.includes(letter)) {
        const rest = text.slice(at + 1);
        const value = rest.length === 0 ? undefined : word.value === undefined ? computedWord(rest) : literalWord(rest);
        result.options.push({ name: `-${letter}`, value, known: true });
        break;
      }
      if (spec.short?.includes(letter)) {
        const rest = text.slice(at + 1);
        let value: Word | undefined;
        if (rest.length > 0) value = word.value === undefined ? computedWord(rest) : literalWord(rest);
        else {
          value = args[index + 1];
          index += 1;
        }
        result.options.push({ name: `-${letter}`, value, known: true });
        break;
      }
      const known = spec.flags === undefined || spec.flags.includes(letter);
      if (!known) result.unknown.push(`-${letter}`);
      result.options.push({ name: `-${letter}`, value: undefined, known });
      at += 1;
    }
    if (word.value === undefined) result.computedOption = true;
    index += 1;
  }
  return result;
}

function resolveLong(
  given: string,
  long: readonly string[],
  flags: readonly string[],
  abbreviations: boolean,
): string | undefined {
  if (long.includes(given) || flags.includes(given)) return given;
  if (!abbreviations || given.length === 0) return undefined;
  const candidates = [...long, ...flags].filter((name) => name.startsWith(given));
  return candidates.length === 1 ? candidates[0] : undefined;
}

export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}

export function optionValues(parsed: ParsedArgs, ...names: string[]): Word[] {
  return parsed.options
    .filter((option) => names.includes(option.name) && option.value !== undefined)
    .map((option) => option.value as Word);
}
