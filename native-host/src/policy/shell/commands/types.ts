import { say, type RiskLevel } from '@nextai/shared';

import { checkPath, report, type Invocation, type PathRole } from '../invocation.js';
import { parseOptions, type OptionSpec, type ParsedArgs } from '../options.js';
import type { ShellPhrase } from '../phrases.js';
import type { AnalysisState } from '../state.js';

export type Handler = (inv: Invocation, st: AnalysisState) => void;

export interface SimpleRule {
  risk: RiskLevel;
  /** What the command does, for the finding ("creates folders"). */
  what?: ShellPhrase;
  /** How its operands are used; omitted when they are not paths. */
  paths?: PathRole;
  /** Its options, so that option values are not taken for paths. */
  options?: OptionSpec;
}

/** A handler for a command that does one thing to its operands. */
export function simple(rule: SimpleRule): Handler {
  return (inv, st) => {
    report(st, inv, rule.risk, rule.what ?? say(`runs ${inv.program}`, `运行 ${inv.program}`));
    if (!rule.paths) return;
    const parsed = parseOptions(inv.args, rule.options ?? {});
    checkOperands(inv, st, parsed, rule.paths);
  };
}

export function checkOperands(inv: Invocation, st: AnalysisState, parsed: ParsedArgs, role: PathRole, skip = 0): void {
  for (const operand of parsed.operands.slice(skip)) checkPath(st, inv, operand, role);
}

/** Flags given as one cluster or separately: `-rf`, `-r -f`, `--recursive`. */
export function hasFlag(parsed: ParsedArgs, short: string, ...long: string[]): boolean {
  return parsed.options.some(
    (option) => option.name === `-${short}` || long.some((name) => option.name === `--${name}`),
  );
}
