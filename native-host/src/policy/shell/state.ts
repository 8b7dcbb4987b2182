import { RISK_LEVELS, higherRisk, say, type Localized, type RiskLevel } from '@nextai/shared';

import type { GuardVerdict, ShellGuards } from '../verdicts.js';
import { ShellEffects } from './effects.js';
import type { Invocation, Stdin } from './invocation.js';
import { pathRules, type PathRules } from './paths.js';
import { localized, type ShellPhrase } from './phrases.js';
import type { WordEnv } from './words.js';

export interface ShellFinding {
  risk: RiskLevel;
  /** e.g. "deletes files recursively: rm -rf build/ ~", in every language the panel shows. */
  reason: Localized;
  excerpt?: string;
}

/** Thrown inside the analysis when the deadline passes; the analysis then fails closed. */
export class AnalysisTimeout extends Error {
  constructor() {
    super('the analysis took too long');
  }
}

const MAX_FINDINGS = 40;

interface Found {
  risk: RiskLevel;
  what: Localized;
  excerpt: string | undefined;
  count: number;
}
const MAX_EXCERPT = 160;

/** Everything one analysis learns while it walks a command. */
export class AnalysisState {
  risk: RiskLevel = 'low';
  blocked: { layer: GuardVerdict['layer']; reason: Localized } | undefined;
  readonly commands = new Set<string>();
  /** Functions the command defines; calling one runs a body that is analysed where it is defined. */
  readonly functions = new Set<string>();
  /** The functions whose bodies are being walked, to notice one that calls itself. */
  readonly defining: string[] = [];
  /** Files the command downloads; running one later is running a download. */
  readonly downloads = new Set<string>();
  /** Files the command writes, with their text when it is fixed; running one runs that text. */
  readonly written = new Map<string, string | undefined>();
  /** Variables that provably hold a number at this point (arithmetic on anything else can run code). */
  numericVars = new Set<string>();
  readonly assocArrays = new Set<string>();
  /** Nothing in the command has assigned HOME or PWD, so they still mean what they meant. */
  homeKnown = true;
  pwdKnown = true;
  /** The working directories the command may be in at this point; undefined once it cannot be known. */
  cwds: string[] | undefined;
  /**
   * The folders the latest `cd` went to, if it succeeds (the walk narrows `cwds` to them for what
   * follows `cd x &&`, which runs only when the cd succeeded).
   */
  lastCd: { targets: string[] } | undefined;
  /** Inside an `if`, loop body, `&&`/`||` branch or function body: assignments may not happen. */
  conditional = 0;
  /** How many `sh -c '…'` / `eval` levels deep the analysis is. */
  depth = 0;
  /** Syntax nesting of the walk, bounded so that deeply nested input cannot exhaust the stack. */
  nesting = 0;
  readonly rules: PathRules;
  /** What a sandbox would have to give the command (effects.ts). */
  readonly effects = new ShellEffects();
  /** Analyses one program start; wired by the analyser so that command handlers can recurse. */
  invoke: (inv: Invocation) => void = () => {
    throw new Error('AnalysisState.invoke is not wired');
  };
  /** Analyses shell text a command runs (`sh -c`, `eval`); wired by the analyser. */
  analyzeText: (text: string, excerpt: string, stdin: Stdin) => void = () => {
    throw new Error('AnalysisState.analyzeText is not wired');
  };
  private readonly found = new Map<string, Found>();
  private steps = 0;

  constructor(
    readonly guards: ShellGuards,
    readonly homeDir: string,
    readonly startDir: string,
    readonly deadline: number,
  ) {
    this.cwds = [startDir];
    this.rules = pathRules(homeDir, startDir);
  }

  /**
   * Records that something in the command is at least `risk`, and why: a phrase of the catalog
   * (phrases.ts, which holds its translations) or a sentence built with `say`.
   */
  raise(risk: RiskLevel, what: ShellPhrase | Localized, excerpt?: string): void {
    this.risk = higherRisk(this.risk, risk);
    if (risk === 'low') return;
    const text = localized(what);
    const existing = this.found.get(text.en);
    if (existing) {
      existing.risk = higherRisk(existing.risk, risk);
      existing.count += 1;
    } else {
      const shortExcerpt = excerpt === undefined ? undefined : shorten(excerpt);
      this.found.set(text.en, { risk, what: text, excerpt: shortExcerpt, count: 1 });
    }
  }

  /** Takes in what a guard said about a path or URL. */
  verdict(verdict: GuardVerdict | undefined, excerpt?: string): void {
    if (!verdict) return;
    if (verdict.block) {
      this.blocked ??= { layer: verdict.layer, reason: verdict.reason };
      this.raise('critical', verdict.reason, excerpt);
    } else {
      this.raise(verdict.risk, verdict.reason, excerpt);
    }
  }

  /** The findings, riskiest first; repeats of one finding are counted, not listed. */
  findings(): ShellFinding[] {
    const rank = (finding: Found) => RISK_LEVELS.indexOf(finding.risk);
    const all = [...this.found.values()].sort((a, b) => rank(b) - rank(a));
    const shown = all.slice(0, MAX_FINDINGS).map((found): ShellFinding => {
      const { what, count, excerpt } = found;
      const more = count > 1 ? say(` (and ${count - 1} more like it)`, `（另有 ${count - 1} 处类似）`) : say('', '');
      if (excerpt === undefined || excerpt === '') {
        return { risk: found.risk, reason: say(`${what.en}${more.en}`, `${what['zh-CN']}${more['zh-CN']}`) };
      }
      // A guard's verdict is a whole sentence: its full stop goes before the excerpt is added.
      const clause = (text: string) => text.replace(/[.。]$/, '');
      const reason = say(
        `${clause(what.en)}: ${excerpt}${more.en}`,
        `${clause(what['zh-CN'])}：${excerpt}${more['zh-CN']}`,
      );
      return { risk: found.risk, reason, excerpt };
    });
    const rest = all.slice(MAX_FINDINGS);
    const riskiest = rest[0];
    if (riskiest) {
      const reason = say(`…and ${rest.length} more kinds of findings`, `……另有 ${rest.length} 类发现`);
      shown.push({ risk: riskiest.risk, reason });
    }
    return shown;
  }

  /** Called for every node visited: the deadline holds for the walk too, not only for parsing. */
  tick(): void {
    this.steps += 1;
    if ((this.steps & 63) === 0 && performance.now() > this.deadline) throw new AnalysisTimeout();
  }

  wordEnv(): WordEnv {
    const cwd = this.pwdKnown && this.cwds?.length === 1 ? this.cwds[0] : undefined;
    return { homeKnown: this.homeKnown, homeDir: this.homeDir, cwd };
  }
}

export function shorten(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > MAX_EXCERPT ? `${flat.slice(0, MAX_EXCERPT - 1)}…` : flat;
}
