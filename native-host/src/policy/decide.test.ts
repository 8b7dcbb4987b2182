import { TEMPLATES, say, verbatim, type ApprovalAction, type RiskLevel, type TemplateId } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { decide, type DecisionInput } from './decide.js';

const bash = { name: 'bash_execute', title: 'Run a shell command', category: 'terminal', risk: 'high' } as const;
const screenshot = { name: 'screenshot', title: 'Take a screenshot', category: 'screen', risk: 'low' } as const;
const click = { name: 'left_click', title: 'Click', category: 'mouse', risk: 'medium' } as const;

function input(overrides: Partial<DecisionInput> = {}, template: TemplateId = 'development'): DecisionInput {
  return {
    tool: bash,
    analysis: { risk: 'low', findings: [] },
    guards: [],
    requiredLevel: 'L3',
    permissionLevel: 'L3',
    project: { name: 'default', template, policy: structuredClone(TEMPLATES[template].policy) },
    ...overrides,
  };
}

const tools = { low: screenshot, medium: click, high: bash } as const;

describe('decide: the four templates', () => {
  // [template, risk, expected] — the template table, with each mode's effect.
  const table: [TemplateId, RiskLevel, ApprovalAction][] = [
    ['full-auto', 'low', 'auto_approve'],
    ['full-auto', 'medium', 'auto_approve'],
    ['full-auto', 'high', 'auto_approve'],
    ['full-auto', 'critical', 'require_approval'],
    ['development', 'low', 'auto_approve'],
    ['development', 'medium', 'auto_approve'],
    ['development', 'high', 'require_approval'],
    ['development', 'critical', 'always_block'],
    ['strict', 'low', 'auto_approve'],
    ['strict', 'medium', 'require_approval'],
    ['strict', 'high', 'require_approval'],
    ['strict', 'critical', 'always_block'],
    ['observe', 'low', 'require_approval'],
    ['observe', 'medium', 'require_approval'],
    ['observe', 'high', 'require_approval'],
    ['observe', 'critical', 'always_block'],
  ];
  it.each(table)('%s template, %s risk → %s', (template, risk, expected) => {
    const tool = risk === 'critical' ? bash : tools[risk];
    const decision = decide(
      input({ tool, analysis: { risk, findings: [] }, permissionLevel: 'L4', requiredLevel: 'L1' }, template),
    );
    expect(decision.action).toBe(expected);
    expect(decision.risk).toBe(risk);
  });
});

describe('decide: modes', () => {
  const custom = (mode: 'auto' | 'supervised' | 'locked', riskAction: ApprovalAction) =>
    input({
      tool: bash,
      project: {
        name: 'p',
        policy: {
          mode,
          risk_policies: { low: riskAction, medium: riskAction, high: riskAction, critical: 'always_block' },
          category_overrides: {},
          tool_overrides: {},
        },
      },
    });
  it('auto follows the rules as written', () =>
    expect(decide(custom('auto', 'auto_approve')).action).toBe('auto_approve'));
  it('supervised asks before high-risk actions even when the rules say auto', () => {
    const decision = decide(custom('supervised', 'auto_approve'));
    expect(decision).toMatchObject({ action: 'require_approval', layer: 'project_policy' });
    expect(decision.reason).toContain('supervised');
  });
  it('locked asks before everything', () => {
    const decision = decide({ ...custom('locked', 'auto_approve'), tool: screenshot });
    expect(decision).toMatchObject({ action: 'require_approval', reason: expect.stringContaining('locked') });
  });
  it('no mode loosens always_block', () => expect(decide(custom('auto', 'always_block')).action).toBe('always_block'));
});

describe('decide: overrides', () => {
  it('a tool override beats the category override, which beats the risk policy', () => {
    const base = input({}, 'full-auto');
    base.project.policy.category_overrides = { 终端操控: 'require_approval' };
    expect(decide(base)).toMatchObject({
      action: 'require_approval',
      reason: expect.stringContaining('terminal tools'),
    });
    base.project.policy.tool_overrides = { bash_execute: 'notify_only' };
    expect(decide(base)).toMatchObject({ action: 'notify_only', reason: expect.stringContaining('bash_execute') });
  });

  it('instruction rules and grant rules only tighten', () => {
    const loosen = input({ promptRules: { approval_overrides: { bash_execute: 'auto_approve' } } });
    expect(decide(loosen)).toMatchObject({ action: 'require_approval', layer: 'project_policy' });
    const tighten = input({ tool: click, promptRules: { approval_overrides: { mouse: 'require_approval' } } });
    expect(decide(tighten)).toMatchObject({ action: 'require_approval', layer: 'prompt_rules' });
    const grant = input({
      tool: click,
      grant: { tools: ['left_click'], approval_overrides: { left_click: 'always_block' } },
    });
    expect(decide(grant)).toMatchObject({ action: 'always_block', layer: 'grant_overrides' });
    const grantLoosen = input({
      grant: { tools: ['bash_execute'], approval_overrides: { bash_execute: 'auto_approve' } },
    });
    expect(decide(grantLoosen).action).toBe('require_approval');
  });

  it('critical risk needs a person every time, even with an auto_approve override', () => {
    const base = input(
      {
        analysis: {
          risk: 'critical',
          findings: [say('deletes files recursively: rm -rf ~', '递归删除文件：rm -rf ~')],
        },
        permissionLevel: 'L4',
      },
      'full-auto',
    );
    base.project.policy.tool_overrides = { bash_execute: 'auto_approve' };
    expect(decide(base)).toMatchObject({
      action: 'require_approval',
      layer: 'sensitive_operation',
      per_call: true,
      reason: expect.stringContaining('rm -rf ~'),
    });
  });
});

describe('decide: hard limits', () => {
  it('the emergency stop blocks everything, named as such', () => {
    const decision = decide(
      input({ tool: screenshot, emergencyStop: { since: '2026-11-22T00:00:00Z', reason: 'panic' } }, 'full-auto'),
    );
    expect(decision).toMatchObject({ action: 'always_block', layer: 'emergency_stop' });
  });

  it('a blocking guard beats every template', () => {
    const decision = decide(
      input(
        {
          tool: screenshot,
          guards: [
            { block: true, risk: 'critical', layer: 'protected_files', reason: verbatim("That is NextAI's own data.") },
          ],
        },
        'full-auto',
      ),
    );
    expect(decision).toMatchObject({
      action: 'always_block',
      layer: 'protected_files',
      reason: "That is NextAI's own data.",
    });
  });

  it('a non-blocking guard raises the risk', () => {
    const decision = decide(
      input(
        {
          tool: screenshot,
          guards: [
            { block: false, risk: 'critical', layer: 'filesystem', reason: say('reads an SSH key', '读取 SSH 密钥') },
          ],
        },
        'full-auto',
      ),
    );
    expect(decision).toMatchObject({ risk: 'critical', action: 'require_approval', findings: ['reads an SSH key'] });
  });

  it('a call above the permission level is blocked, saying which level it needs', () => {
    const decision = decide(input({ requiredLevel: 'L4', permissionLevel: 'L3' }, 'full-auto'));
    expect(decision).toMatchObject({
      action: 'always_block',
      layer: 'permission_level',
      reason: expect.stringContaining('needs permission level L4'),
    });
  });

  it('a grant limits tools and risk', () => {
    expect(decide(input({ grant: { tools: ['screenshot'] } }))).toMatchObject({
      action: 'always_block',
      layer: 'grant',
    });
    expect(
      decide(input({ grant: { tools: ['bash_execute'], restrictions: { max_risk_level: 'medium' } } }, 'full-auto')),
    ).toMatchObject({ action: 'always_block', layer: 'grant', reason: expect.stringContaining('up to medium') });
  });

  it('input analysis never lowers a tool’s default risk', () => {
    expect(decide(input({ analysis: { risk: 'low', findings: [] } })).risk).toBe('high');
  });
});

describe('decide: runs', () => {
  const run = (approvedForRun: boolean, consecutive = 0, total = 0) => ({
    approvedForRun,
    denials: { consecutive, total },
  });
  it('an approval for the run lets later calls of the tool through', () => {
    expect(decide(input({ run: run(true) }))).toMatchObject({ action: 'auto_approve', layer: 'run_approval' });
  });
  it('but never a critical one', () => {
    expect(
      decide(
        input({ run: run(true), analysis: { risk: 'critical', findings: [] }, permissionLevel: 'L4' }, 'full-auto'),
      ).action,
    ).toBe('require_approval');
  });
  it('3 denials in a row, or 20 in all, make the run ask before everything', () => {
    const tool = screenshot;
    expect(decide(input({ tool, run: run(false, 2, 2) }, 'full-auto')).action).toBe('auto_approve');
    expect(decide(input({ tool, run: run(false, 3, 3) }, 'full-auto'))).toMatchObject({
      action: 'require_approval',
      layer: 'circuit_breaker',
    });
    expect(decide(input({ tool, run: run(true, 0, 20) }, 'full-auto'))).toMatchObject({
      action: 'require_approval',
      layer: 'circuit_breaker',
    });
  });
});

describe('decide: the reason in the panel’s other language', () => {
  it('says why in Chinese too, with the same names and the findings item for item', () => {
    const decision = decide(
      input({
        analysis: { risk: 'high', findings: [say('deletes files: rm notes.txt', '删除文件：rm notes.txt')] },
        guards: [
          { block: false, risk: 'high', layer: 'network', reason: say('x.test is not allowed', '不允许 x.test') },
        ],
      }),
    );
    expect(decision.reason).toBe(
      'The project "default" (Development template) sets high-risk actions to ask you first.',
    );
    expect(decision.translations['zh-CN']).toEqual({
      reason: '项目“default”（开发模式模板）将高风险操作设为“先问你”。',
      findings: ['删除文件：rm notes.txt', '不允许 x.test'],
    });
    expect(decision.findings).toEqual(['deletes files: rm notes.txt', 'x.test is not allowed']);
  });

  it('blocks with the guard’s own words in each language', () => {
    const reason = say('~/.nextai-agent is NextAI’s own folder.', '~/.nextai-agent 是 NextAI 自身的目录。');
    const decision = decide(input({ guards: [{ block: true, risk: 'critical', layer: 'protected_files', reason }] }));
    expect(decision).toMatchObject({ action: 'always_block', reason: reason.en });
    expect(decision.translations['zh-CN']?.reason).toBe(reason['zh-CN']);
  });
});

describe('actions a web page may have asked for', () => {
  const browserClick = {
    name: 'browser_interact',
    title: 'Act on a page',
    category: 'browser',
    risk: 'medium',
  } as const;

  it('ask a person in every template, each time, naming the layer and why', () => {
    for (const template of ['full-auto', 'development', 'strict', 'observe'] as const) {
      const decision = decide(
        input(
          {
            tool: browserClick,
            webContent: { reason: say('click submits a form with a password field', '提交登录表单（登录）') },
            run: { approvedForRun: true, denials: { consecutive: 0, total: 0 } },
          },
          template,
        ),
      );
      expect(decision.action, template).toBe('require_approval');
      expect(decision.layer, template).toBe('web_content');
      expect(decision.per_call, template).toBe(true);
      expect(decision.reason).toContain('password field');
      expect(decision.translations['zh-CN']?.reason).toBe(
        '这个操作可能是网页要求的：提交登录表单（登录）。每次都需要有人批准。',
      );
    }
  });

  it('a tab the person opened is entered only with their approval', () => {
    const decision = decide(
      input(
        {
          tool: { name: 'browser_tabs', title: 'Manage tabs', category: 'browser', risk: 'medium' },
          tabAccess: { reason: verbatim('lets the agent work in a tab you opened yourself') },
        },
        'full-auto',
      ),
    );
    expect(decision).toMatchObject({ action: 'require_approval', layer: 'tab_access', per_call: true });
  });

  it('never loosens a block', () => {
    const decision = decide(
      input({
        tool: browserClick,
        webContent: { reason: verbatim('click sends a message') },
        emergencyStop: { since: 'now', reason: 'test' },
      }),
    );
    expect(decision.action).toBe('always_block');
  });
});
