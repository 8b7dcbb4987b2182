/**
 * Bash brace expansion for paths found in shell commands. Bash expands braces before anything
 * else, globs included, so the file guard expands them first and checks every path they yield.
 * Pure text: nothing here touches the file system.
 */

/** More alternatives than any real command needs; beyond it the path counts as unknown. */
export const MAX_BRACE_EXPANSIONS = 256;

/**
 * Bash brace expansion (`{a,b}`, `{1..3}`, `{a..c}`, nested), which happens before globbing
 * and may span folders (`{a,../x}/y`). Undefined when it yields more than the limit.
 */
export function expandBraces(value: string, limit = MAX_BRACE_EXPANSIONS): string[] | undefined {
  const brace = findBrace(value, limit);
  if (brace === 'too-many') return undefined;
  if (!brace) return [value];
  const prefix = value.slice(0, brace.start);
  const suffix = value.slice(brace.end + 1);
  const results: string[] = [];
  for (const alternative of brace.alternatives) {
    const expanded = expandBraces(prefix + alternative + suffix, limit);
    if (expanded === undefined || results.length + expanded.length > limit) return undefined;
    results.push(...expanded);
  }
  return results;
}

type Brace = { start: number; end: number; alternatives: string[] };

function findBrace(value: string, limit: number): Brace | 'too-many' | undefined {
  for (let start = value.indexOf('{'); start >= 0; start = value.indexOf('{', start + 1)) {
    // `${x}` is a variable and `\{` a literal brace, not an expansion.
    if (value[start - 1] === '$' || value[start - 1] === '\\') continue;
    let depth = 0;
    let end = -1;
    const commas: number[] = [];
    for (let index = start; index < value.length && end < 0; index += 1) {
      const char = value[index];
      if (char === '\\') index += 1;
      else if (char === '{') depth += 1;
      else if (char === '}') {
        depth -= 1;
        if (depth === 0) end = index;
      } else if (char === ',' && depth === 1) commas.push(index);
    }
    if (end < 0) return undefined;
    if (commas.length > 0) {
      const bounds = [start, ...commas, end];
      const alternatives = bounds.slice(0, -1).map((at, i) => value.slice(at + 1, bounds[i + 1]));
      return { start, end, alternatives };
    }
    const range = braceRange(value.slice(start + 1, end), limit);
    if (range) return range === 'too-many' ? range : { start, end, alternatives: range };
  }
  return undefined;
}

function braceRange(inner: string, limit: number): string[] | 'too-many' | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(inner);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(inner);
  let from: number;
  let to: number;
  let step = 1;
  if (numbers) {
    from = Number(numbers[1]);
    to = Number(numbers[2]);
    step = Math.abs(Number(numbers[3] ?? 1)) || 1;
  } else if (letters) {
    from = (letters[1] as string).charCodeAt(0);
    to = (letters[2] as string).charCodeAt(0);
  } else {
    return undefined;
  }
  // Counted before anything is built, so {1..99999999} costs nothing.
  if (Math.abs(to - from) / step >= limit) return 'too-many';
  const direction = from <= to ? step : -step;
  const values: string[] = [];
  for (let at = from; direction > 0 ? at <= to : at >= to; at += direction) {
    values.push(numbers ? String(at) : String.fromCharCode(at));
  }
  return values;
}
