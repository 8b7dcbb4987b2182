import type { Command } from 'commander';

import { DECISION_LAYER_TITLES, TEMPLATES, type Decision } from '@nextai/shared';

import { describeAction } from '../policy/decide.js';
import { parseJsonObject } from './json-input.js';
import { printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

export function registerPolicyCommand(program: Command): void {
  const policy = program.command('policy').description('See and change the approval policy.');

  policy
    .command('explain')
    .description('Say what the policy would decide for a tool call, and why. Runs nothing.')
    .argument('<tool>', 'tool name, e.g. bash_execute')
    .argument('[input]', 'tool input as JSON, e.g. \'{"command":"rm -rf build"}\'')
    .option('--project <name>', 'project whose policy applies (default: the default project)')
    .option('--json', 'print JSON: decision, risk, layer, reason, findings, trail, sandboxed, sandbox')
    .action(async (tool: string, rawInput: string | undefined, options: { project?: string; json?: boolean }) => {
      const input = parseJsonObject(rawInput, 'tool input');
      const { decision, project } = await withDaemon((client) =>
        client.peer.request('policy.explain', {
          tool,
          input,
          ...(options.project ? { project: options.project } : {}),
        }),
      );
      if (options.json) {
        printJson({
          decision: decision.action,
          risk: decision.risk,
          default_risk: decision.default_risk,
          layer: decision.layer,
          reason: decision.reason,
          findings: decision.findings,
          per_call: decision.per_call,
          trail: decision.trail,
          project,
          ...(decision.sandbox ? { sandboxed: decision.sandbox.sandboxed, sandbox: decision.sandbox } : {}),
        });
        return;
      }
      printDecision(decision, project);
    });

  policy
    .command('show')
    .description('Show the policy in force for a project, and the global safety settings.')
    .option('--project <name>', 'project to show (default: the default project)')
    .option('--json', 'print JSON')
    .action(async (options: { project?: string; json?: boolean }) => {
      const shown = await withDaemon((client) =>
        client.peer.request('policy.show', options.project ? { project: options.project } : {}),
      );
      if (options.json) {
        printJson(shown);
        return;
      }
      const { project, security, config } = shown;
      const template = project.template
        ? `${project.template} (${TEMPLATES[project.template].names['zh-CN']})`
        : 'custom';
      printLine(`project:           ${project.id} — ${project.name}`);
      printLine(`template:          ${template}`);
      printLine(`mode:              ${project.approval.mode}`);
      for (const risk of ['low', 'medium', 'high', 'critical'] as const) {
        printLine(`  ${risk.padEnd(16)} ${project.approval.risk_policies[risk]}`);
      }
      for (const [key, action] of Object.entries(project.approval.category_overrides))
        printLine(`  category ${key}: ${action}`);
      for (const [key, action] of Object.entries(project.approval.tool_overrides))
        printLine(`  tool ${key}: ${action}`);
      printLine(`permission level:  ${security.permission_level}`);
      printLine(`allowed folders:   ${security.allowed_directories.join(', ')}`);
      printLine(`denied patterns:   ${security.denied_patterns.join(', ')}`);
      printLine(
        `blocked domains:   ${security.blocked_domains.join(', ')} + ${security.blocked_domain_categories.join(', ')}`,
      );
      printLine(`blocked apps:      ${security.blocked_apps.join(', ')}`);
      printLine(`projects:          ${shown.projects.map((entry) => entry.id).join(', ')}`);
      printLine(`config:            ${config.file} (${config.source})`);
      if (config.problem)
        printLine(`problem:           config.json was refused; the policy above is still in force:\n${config.problem}`);
    });

  policy
    .command('set-template')
    .description(
      'Set a project to a template: full-auto (全自动), development (开发模式), strict (严格模式), observe (观察模式).',
    )
    .argument('<template>', 'template id or name')
    .option('--project <name>', 'project to change (default: the default project)')
    .action(async (template: string, options: { project?: string }) => {
      const { project } = await withDaemon((client) =>
        client.peer.request('policy.set_template', {
          template,
          ...(options.project ? { project: options.project } : {}),
        }),
      );
      printLine(`project ${project.id} now uses the ${project.template ?? template} template`);
    });
}

function printDecision(decision: Decision, project: string): void {
  const risk =
    decision.risk === decision.default_risk
      ? decision.risk
      : `${decision.risk} (the tool's default is ${decision.default_risk})`;
  printLine(`decision: ${decision.action} — ${describeAction(decision.action)}`);
  printLine(`risk:     ${risk}`);
  printLine(`layer:    ${DECISION_LAYER_TITLES[decision.layer].en} (${decision.layer})`);
  printLine(`reason:   ${decision.reason}`);
  printLine(`project:  ${project}`);
  const sandbox = decision.sandbox;
  if (sandbox) {
    printLine(`sandbox:  ${sandbox.summary}`);
    if (sandbox.mechanism !== 'none') {
      printLine(
        `          ${sandbox.mechanism}; writable: ${sandbox.writable.join(', ') || 'none'}; network: ${sandbox.network}`,
      );
      if (sandbox.hidden.length > 0) printLine(`          hidden: ${sandbox.hidden.join(', ')}`);
    }
    for (const note of sandbox.notes ?? []) printLine(`          note: ${note}`);
  }
  if (decision.findings.length > 0) {
    printLine('found:');
    for (const finding of decision.findings) printLine(`  - ${finding}`);
  }
}
