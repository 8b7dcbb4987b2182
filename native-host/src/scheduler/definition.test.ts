import { describe, expect, it } from 'vitest';

import { checkDefinition, needsScreen, type DefinitionChecks } from './definition.js';
import { ALLOWED } from './testing/harness.js';

/** A project that forbids bash_execute and blocks writes under /etc. */
const checks: DefinitionChecks = {
  projectId: (name) => {
    if (name !== undefined && name !== 'work') throw new Error(`There is no project "${name}".`);
    return name ?? 'default';
  },
  forbids: (tool) =>
    tool.name === 'bash_execute'
      ? { en: 'The project sets bash_execute to never run.', 'zh-CN': '项目设置 bash_execute 永不运行。' }
      : undefined,
  explain: (step) =>
    String(step.input.path ?? '').startsWith('/etc')
      ? { ...ALLOWED, action: 'always_block', layer: 'filesystem', reason: '/etc is denied.' }
      : ALLOWED,
};

const base = {
  name: 'a',
  cron: '0 9 * * *',
  timezone: 'UTC',
  enabled: true,
  catch_up: 'once',
  allow_overlap: false,
  retry_on_failure: true,
  max_retries: 3,
  retry_backoff_seconds: 60,
  limits: {},
  daily_cost_cap_usd: 5,
  urgent: false,
} as const;

describe('checkDefinition', () => {
  it('fills in the limits and, for fixed steps without a grant, grants exactly the steps’ tools', () => {
    const checked = checkDefinition(
      {
        ...base,
        steps: [
          { tool: 'file_write', input: { path: '~/Desktop/x', content: 'y' } },
          { tool: 'file_read', input: { path: '~/Desktop/x' } },
        ],
      },
      checks,
    );
    expect(checked.granted_tools).toEqual({ tools: ['file_write', 'file_read'] });
    expect(checked.implicit_grant).toBe(true);
    expect(checked.limits).toEqual({ max_steps: 50, max_tokens: 1_000_000, max_cost_usd: 1, max_wall_seconds: 1800 });
    expect(checked.project).toBe('default');
  });

  it.each([
    [{ instruction: 'x', steps: [{ tool: 'file_read', input: { path: '~/a' } }] }, /either an instruction .* or steps/],
    [{}, /needs an instruction for the agent/],
    [{ instruction: 'x', cron: '0 25 * * *' }, /not a valid cron expression/],
    [{ instruction: 'x', timezone: 'Nowhere/City' }, /not a time zone/],
    [{ steps: [{ tool: 'no_such_tool', input: {} }] }, /Step 1 names "no_such_tool", which is not a tool/],
    [{ steps: [{ tool: 'file_read', input: {} }] }, /Step 1 \(file_read\) has invalid input: path/],
    [{ steps: [{ tool: 'ask_user', input: { question: 'q' } }] }, /only an agent run can use/],
    [
      { steps: [{ tool: 'file_write', input: { path: '/etc/passwd', content: '' } }] },
      /Step 1 \(file_write\) would be blocked every time \(filesystem\): \/etc is denied/,
    ],
    [
      { instruction: 'x', granted_tools: { tools: ['bash_execute'] } },
      /grants bash_execute, which the project "default" forbids/,
    ],
    [{ instruction: 'x', granted_tools: { tools: ['teleport'] } }, /The grant names "teleport", which is not a tool/],
    [{ instruction: 'x', granted_tools: { tools: [] } }, /names no tools/],
    [
      { instruction: 'x', granted_tools: { tools: ['file_read'], restrictions: { allowed_directories: ['docs'] } } },
      /"docs" is not a full path/,
    ],
    [
      { steps: [{ tool: 'file_write', input: { path: '~/a', content: '' } }], granted_tools: { tools: ['file_read'] } },
      /uses file_write, which the task's grant does not include/,
    ],
    [{ instruction: 'x', project: 'nope' }, /There is no project "nope"/],
  ])('refuses %j with the reason', (change, reason) => {
    expect(() => checkDefinition({ ...base, ...change } as Parameters<typeof checkDefinition>[0], checks)).toThrow(
      reason,
    );
  });
});

describe('needsScreen', () => {
  it('is true for screen, mouse, keyboard and app tools, and for an agent task that may use anything', () => {
    expect(needsScreen({ steps: [{ tool: 'screenshot', input: {} }] })).toBe(true);
    expect(needsScreen({ granted_tools: { tools: ['file_read', 'type_text'] } })).toBe(true);
    expect(needsScreen({ granted_tools: { tools: ['file_read', 'bash_execute'] } })).toBe(false);
    expect(needsScreen({})).toBe(true);
  });
});
