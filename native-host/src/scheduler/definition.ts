import {
  AppError,
  DEFAULT_SCHEDULE_LIMITS,
  describeZodError,
  getTool,
  say,
  type AnyTool,
  type Decision,
  type GrantedToolSet,
  type Localized,
  type ScheduleDefinition,
} from '@nextai/shared';

import { CronSchedule, checkTimeZone, localTimeZone } from './cron.js';
import type { TaskDefinition } from './schedule-store.js';

/** What checking a task needs from the daemon's policy. */
export interface DefinitionChecks {
  /** The project id for a name (the default project when undefined); throws for an unknown one. */
  projectId(name: string | undefined): string;
  /** Why the project's policy never lets `tool` run (at its default risk), or undefined if it may. */
  forbids(tool: AnyTool, project: string): Localized | undefined;
  /** The policy's decision for one step, with the task's grant (`nextai policy explain`). */
  explain(step: { tool: string; input: Record<string, unknown> }, project: string, grant: GrantedToolSet): Decision;
}

/** Categories whose tools need the person's screen: they wait while it is locked or off. */
const SCREEN_CATEGORIES = new Set(['screen', 'mouse', 'keyboard', 'apps']);

/**
 * Checks a task and fills in what it leaves out. Refused, with the reason: a cron expression or
 * time zone that does not parse; both or neither of instruction and steps; a step that names an
 * unknown tool, fails the tool's input schema, uses a tool outside the grant or that the policy
 * would block; a grant naming a tool the project forbids (a grant can only narrow the project's
 * policy, never widen it). A fixed-step task without a grant is granted exactly its steps' tools.
 */
export function checkDefinition(input: ScheduleDefinition, checks: DefinitionChecks): TaskDefinition {
  const hasInstruction = input.instruction !== undefined;
  const hasSteps = input.steps !== undefined;
  if (hasInstruction === hasSteps) {
    throw new AppError(
      'INVALID_ARGUMENT',
      hasInstruction
        ? say(
            'A task has either an instruction (an agent run) or steps (fixed tool calls), not both.',
            '一个任务只能有指令（智能体运行）或步骤（固定的工具调用）之一，不能两者都有。',
          )
        : say(
            'A task needs an instruction for the agent (--instruction) or a list of tool steps (--steps).',
            '任务需要给智能体的指令（--instruction）或工具步骤列表（--steps）。',
          ),
    );
  }
  const timezone = checkTimeZone(input.timezone ?? localTimeZone());
  CronSchedule.parse(input.cron, timezone);
  const project = checks.projectId(input.project);

  let grant = input.granted_tools ? checkGrant(input.granted_tools, project, checks) : undefined;
  const implicitGrant = input.steps !== undefined && grant === undefined;
  if (input.steps) {
    const tools = input.steps.map((step, index) => checkStep(step, index, grant));
    grant ??= checkGrant({ tools: [...new Set(tools.map((tool) => tool.name))] }, project, checks);
    input.steps.forEach((step, index) => {
      const decision = checks.explain(step, project, grant!);
      if (decision.action === 'always_block') {
        throw new AppError(
          'INVALID_ARGUMENT',
          say(
            `Step ${index + 1} (${step.tool}) would be blocked every time (${decision.layer}): ${decision.reason}`,
            `第 ${index + 1} 步（${step.tool}）每次都会被阻止（${decision.layer}）：${decision.translations['zh-CN']?.reason ?? decision.reason}`,
          ),
          { details: { step: index + 1, tool: step.tool, layer: decision.layer } },
        );
      }
    });
  }
  return {
    ...input,
    timezone,
    project,
    ...(grant ? { granted_tools: grant } : {}),
    ...(implicitGrant ? { implicit_grant: true as const } : {}),
    limits: { ...DEFAULT_SCHEDULE_LIMITS, ...input.limits },
  };
}

function checkGrant(grant: GrantedToolSet, project: string, checks: DefinitionChecks): GrantedToolSet {
  const tools = [...new Set(grant.tools)];
  if (tools.length === 0) {
    throw new AppError(
      'INVALID_ARGUMENT',
      say(
        'The grant names no tools: a task granted nothing could do nothing.',
        '授权中没有任何工具：什么都不被允许的任务什么也做不了。',
      ),
    );
  }
  for (const name of tools) {
    const tool = getTool(name);
    if (!tool) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `The grant names "${name}", which is not a tool. See \`nextai tool --list\`.`,
      );
    }
    const forbidden = checks.forbids(tool, project);
    if (forbidden !== undefined) {
      throw new AppError(
        'INVALID_ARGUMENT',
        say(
          `The task grants ${name}, which the project "${project}" forbids: ${forbidden.en} A task's grant can only narrow the project's policy.`,
          `任务授权了 ${name}，但项目"${project}"禁止它：${forbidden['zh-CN']} 任务的授权只能收紧项目策略，不能放宽。`,
        ),
        { details: { tool: name, project } },
      );
    }
  }
  for (const directory of grant.restrictions?.allowed_directories ?? []) {
    if (!directory.startsWith('/') && !directory.startsWith('~') && !/^[A-Za-z]:[\\/]/u.test(directory)) {
      throw new AppError(
        'INVALID_ARGUMENT',
        say(
          `The granted directory "${directory}" is not a full path (start it with / or ~).`,
          `授权的目录"${directory}"不是完整路径（请以 / 或 ~ 开头）。`,
        ),
      );
    }
  }
  return { ...grant, tools };
}

function checkStep(
  step: { tool: string; input: Record<string, unknown> },
  index: number,
  grant: GrantedToolSet | undefined,
): AnyTool {
  const label = `Step ${index + 1}`;
  const tool = getTool(step.tool);
  if (!tool) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${label} names "${step.tool}", which is not a tool. See \`nextai tool --list\`.`,
    );
  }
  if (tool.category === 'agent') {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${label} uses ${tool.name}, which only an agent run can use. Give the task an instruction instead of steps.`,
    );
  }
  const parsed = tool.input.safeParse(step.input);
  if (!parsed.success) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${label} (${tool.name}) has invalid input: ${describeZodError(parsed.error)}`,
      {
        details: { step: index + 1, tool: tool.name },
      },
    );
  }
  if (grant && !grant.tools.includes(tool.name)) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${label} uses ${tool.name}, which the task's grant does not include (${grant.tools.join(', ')}).`,
    );
  }
  return tool;
}

/** Whether a task may use the screen, mouse, keyboard or windows (it then waits while the screen is locked). */
export function needsScreen(definition: Pick<TaskDefinition, 'steps' | 'granted_tools'>): boolean {
  const tools = definition.steps?.map((step) => step.tool) ?? definition.granted_tools?.tools;
  // An agent task without a grant may use any tool, the screen included.
  if (tools === undefined) return true;
  return tools.some((name) => {
    const category = getTool(name)?.category;
    return category !== undefined && SCREEN_CATEGORIES.has(category);
  });
}
