import type { AnyTool, Localized } from '@nextai/shared';

import { decide } from '../policy/decide.js';
import { requiredLevel } from '../policy/permission-levels.js';
import type { PolicyStore } from '../policy/policy-store.js';

/**
 * Why the project's policy never lets a tool run, judged at the tool's default risk with no input
 * (what a grant naming it could at best get), or undefined if it may run at all. A task's grant
 * may only narrow the policy: granting a tool that this says is forbidden is refused.
 */
export function projectForbids(policy: PolicyStore, tool: AnyTool, projectId: string): Localized | undefined {
  const project = policy.project(projectId);
  const security = policy.current.config.security;
  const decision = decide({
    tool,
    analysis: { risk: tool.risk, findings: [] },
    guards: [],
    requiredLevel: requiredLevel(tool, {}, tool.risk),
    permissionLevel: security.permission_level,
    project: { name: project.name, template: project.template ?? undefined, policy: project.approval },
  });
  if (decision.action !== 'always_block') return undefined;
  return { en: decision.reason, 'zh-CN': decision.translations['zh-CN']?.reason ?? decision.reason };
}
