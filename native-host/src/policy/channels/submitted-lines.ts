import { higherRisk, say, type Localized, type RiskLevel } from '@nextai/shared';

import type { Assessment } from '../assess.js';
import type { TerminalSubmission } from './terminal-input.js';

/** How much of a command the reason quotes. */
const EXCERPT_CHARS = 200;

/**
 * Adds to a keyboard call's assessment what it runs in a terminal: each way the submitted line
 * may read is judged as `bash_execute` of it would be (`assessCommand`), its risk, findings and
 * guards; a line NextAI could not follow is critical (docs/ARCHITECTURE.md: what cannot be proven harmless
 * is the riskiest thing it could be). No sandbox plan comes with it: the line runs in that
 * terminal's shell, wherever that is, not in a new sandbox.
 */
export function withSubmission(
  assessment: Assessment,
  submission: TerminalSubmission,
  assessCommand: (command: string) => Assessment,
): Assessment {
  let risk: RiskLevel = assessment.analysis.risk;
  const findings: Localized[] = [];
  const guards = [...assessment.guards];
  const { action } = submission;
  for (const script of submission.scripts) {
    if ('unknown' in script) {
      risk = 'critical';
      findings.push(
        say(
          `${action.en}, which runs a command line NextAI could not follow (${script.unknown.en})`,
          `${action['zh-CN']}，这会运行一行 NextAI 无法跟踪的命令（${script.unknown['zh-CN']}）`,
        ),
      );
      continue;
    }
    const judged = assessCommand(script.text);
    const shown = excerpt(script.text);
    risk = higherRisk(risk, judged.analysis.risk);
    findings.push(say(`${action.en}, which runs: ${shown}`, `${action['zh-CN']}，这会运行：${shown}`));
    findings.push(...judged.analysis.findings);
    // The person's terminal is not a sandbox: what `bash_execute` of the line would have to leave
    // the sandbox for (writing outside the allowed folders, the network, your desktop) asks here
    // as it would there (the second hostile review: `echo x > ~/file` + Return ran unasked).
    for (const escape of judged.sandbox?.plan.escapes ?? []) {
      risk = higherRisk(risk, escape.floor);
      findings.push(escape.why);
    }
    guards.push(...judged.guards);
  }
  // The submitted lines first: the approval card and the audit say what runs before why.
  const all = [...findings, ...assessment.analysis.findings];
  const seen = new Set<string>();
  return {
    ...assessment,
    analysis: { risk, findings: all.filter((finding) => !seen.has(finding.en) && seen.add(finding.en)) },
    guards,
  };
}

function excerpt(command: string): string {
  const flat = command.replace(/\r?\n/g, ' ⏎ ');
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
