/**
 * bash evaluates array subscripts inside arithmetic, and arithmetic evaluates variables
 * recursively: if `x` holds `a[$(cmd)]`, then `$((x))`, `[[ $x -eq 1 ]]` or `let y=x` runs cmd.
 * Arithmetic is therefore only harmless on numbers and on variables this command provably set to
 * numbers; everything else fails closed.
 */
import { say } from '@nextai/shared';

import { criticalVariable } from './environment.js';
import type { AnalysisState } from './state.js';

/** Records whether `name` now provably holds a number; an assignment that may not run cannot prove it. */
export function setNumeric(st: AnalysisState, name: string, numeric: boolean): void {
  if (!numeric) st.numericVars.delete(name);
  else if (st.conditional === 0) st.numericVars.add(name);
}

/** Arithmetic reads `name`: fine when it provably holds a number, critical otherwise. */
export function useVariable(name: string, st: AnalysisState, excerpt: string): void {
  if (st.numericVars.has(name)) return;
  st.raise(
    'critical',
    say(
      `does arithmetic on $${name}, which is not known to hold a number (a value like a[$(cmd)] would run cmd)`,
      `对 $${name} 做算术运算，但无法确认它存的是数字（像 a[$(cmd)] 这样的值会运行 cmd）`,
    ),
    excerpt,
  );
}

/** Arithmetic given as text (`let`, `[[ x -eq y ]]`, a subscript written as a word). */
export function arithmeticText(text: string, st: AnalysisState, excerpt: string): void {
  if (/[$`[\]'"\\]/.test(text)) {
    st.raise('critical', 'evaluates arithmetic text that can run commands', excerpt);
    return;
  }
  const tokens = text.matchAll(/[0-9][0-9A-Za-z#@_]*|([A-Za-z_]\w*)(\s*(?:[-+*/%&|^]|\*\*|<<|>>)?=(?!=))?/g);
  const targets: string[] = [];
  for (const token of tokens) {
    const [, identifier, assigning] = token;
    if (identifier === undefined) continue;
    // `x = …` only writes x; `x += …` and a plain `x` read it.
    if (assigning === undefined || !/^\s*=$/.test(assigning)) useVariable(identifier, st, excerpt);
    if (assigning !== undefined) targets.push(identifier);
  }
  for (const target of targets) setNumeric(st, target, true);
}

/** `a[…]` written as text (`read 'a[i]'`, `unset 'a[i]'`): the index is arithmetic unless the array is associative. */
export function subscriptText(name: string, st: AnalysisState, excerpt: string): void {
  const match = /^([A-Za-z_]\w*)\[(.*)\]$/s.exec(name);
  if (!match) {
    st.raise('critical', 'names a variable in a way the analyser cannot read', excerpt);
    return;
  }
  const [, array = '', index = ''] = match;
  if (st.assocArrays.has(array) || index === '@' || index === '*') return;
  arithmeticText(index, st, excerpt);
}

/** A builtin (`read`, `printf -v`, `mapfile`) assigns the variable named by `word`. */
export function assignsVariable(value: string | undefined, st: AnalysisState, excerpt: string): void {
  if (value === undefined) {
    st.raise('critical', 'assigns a variable whose name is computed at run time', excerpt);
    return;
  }
  if (value.includes('[')) subscriptText(value, st, excerpt);
  const name = value.replace(/\[.*$/s, '');
  const why = criticalVariable(name, undefined);
  if (why) st.raise('critical', why, excerpt);
  setNumeric(st, name, false);
}
