import fs from 'node:fs';
import path from 'node:path';

import { securityConfigSchema, type TemplateId } from '@nextai/shared';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import type { WindowInfo } from '../platform/desktop.js';
import { createFakeDesktop } from '../platform/fake-desktop.js';
import { assessEnvFactory } from '../policy/assess-env.js';
import { assessInput } from '../policy/assess.js';
import { terminalInputOn } from '../policy/channels/terminal-input.js';
import { PolicyStore } from '../policy/policy-store.js';
import { initShellAnalyzer } from '../policy/shell/index.js';
import { everydayHome, stubSandbox } from '../policy/testing/sandbox-judge.js';
import { SandboxService } from '../sandbox/service.js';
import { createHostHandlers } from '../tools/host-handlers.js';
import { testServices } from '../tools/test-support.js';
import { ApprovalQueue } from './approvals.js';
import type { AuditEntry } from './audit/index.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EventLog } from '../storage/event-log.js';
import { ToolGateway, type CallContext } from './tool-gateway.js';

/**
 * Keys into a terminal, through the one chokepoint with the real analyser and guards and the fake
 * desktop: `type_text "rm -rf ~"` and then Enter (or ctrl+m, KP_Enter, a paste and
 * Enter) in an xterm is judged as `rm -rf ~` before the key is sent; the same typing into a text
 * editor is not asked.
 */
const log = createLogger({ component: 'test', level: 'error' });
let home: string;
let cleanupHome: () => void;
let dir: string;
let db: Db;
let approvals: ApprovalQueue;
let policy: PolicyStore;

beforeAll(async () => {
  await initShellAnalyzer();
});
beforeEach(async () => {
  ({ home, cleanup: cleanupHome } = everydayHome());
  dir = path.join(path.dirname(home), 'data');
  fs.mkdirSync(dir);
  db = await openDatabase(path.join(dir, 'data.db'), log);
  approvals = new ApprovalQueue(db, new EventLog(db));
  policy = new PolicyStore(path.join(dir, 'config.json'), db, log);
});
afterEach(() => {
  db.close();
  cleanupHome();
});

const bounds = { x: 0, y: 0, width: 800, height: 600 };
const window = (id: string, app: string, title: string, focused: boolean): WindowInfo => ({
  id,
  app,
  title,
  pid: 100,
  bounds,
  focused,
  minimized: false,
});

function setup(front: 'terminal' | 'editor', template: TemplateId = 'development', level: 'L3' | 'L4' = 'L3') {
  fs.writeFileSync(policy.configFile, JSON.stringify({ security: { permission_level: level } }));
  expect(policy.reload().accepted).toBe(true);
  policy.setTemplate(template);
  const fake = createFakeDesktop({
    windows: [
      window('0x1', 'xterm', 'me@host: ~', front === 'terminal'),
      window('0x2', 'gedit', 'notes.txt - gedit', front === 'editor'),
    ],
  });
  const security = securityConfigSchema.parse({});
  const sandbox = new SandboxService({
    sandbox: stubSandbox(),
    platform: 'linux',
    homeDir: home,
    security: () => security,
    own: [dir],
  });
  const env = assessEnvFactory('linux', home, [dir], undefined, sandbox)(security);
  const events = new EventLog(db);
  const audited: AuditEntry[] = [];
  const gateway = new ToolGateway({
    handlers: createHostHandlers(testServices(fake.desktop)).handlers,
    platform: 'linux',
    paths: dataPaths(dir, 'linux'),
    log,
    events,
    policy,
    approvals,
    audit: { append: (entry) => audited.push(entry) },
    emergency: () => ({ active: false }),
    assess: (tool, input, grant) => assessInput(tool, input, env, grant),
    notify: async () => ({ delivered: false, reason: 'tests' }),
    browserClients: () => [],
    terminalInput: terminalInputOn(fake.desktop, 'linux'),
  });
  const cli: CallContext = { source: 'cli' };
  const call = (name: string, input: Record<string, unknown>) => gateway.call({ name, input }, cli);
  /** The keys the desktop was asked to press. */
  const pressed = () => fake.actions.filter((action) => action.op === 'pressKeys').map((action) => action.args[0]);
  /** What the decision of the last call found, as the audit log keeps it. */
  const findings = () =>
    (audited.filter((entry) => entry.kind === 'decision').at(-1)?.details as { findings: string[] }).findings;
  return { fake, call, pressed, findings };
}

describe('a key that submits a line typed into a terminal is judged as that command', () => {
  it.each([[['enter']], [['Return']], [['ctrl', 'm']], [['ctrl', 'j']], [['KP_Enter']]])(
    'type_text "rm -rf ~", then %j in an xterm: blocked as bash_execute of it is, and not sent',
    async (keys) => {
      const { call, pressed, findings } = setup('terminal');
      const command = await call('bash_execute', { command: 'rm -rf ~' });
      expect((await call('type_text', { text: 'rm -rf ~' })).ok).toBe(true);
      const result = await call('key_press', { keys });
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'POLICY_BLOCKED' },
        decision: { action: 'always_block', risk: 'critical', layer: command.decision?.layer },
      });
      expect(findings()[0]).toMatch(/^presses .* in the terminal xterm "me@host: ~", which runs: rm -rf ~$/);
      expect(findings()).toContain('changes your whole home folder: rm -rf ~');
      expect(pressed()).toEqual([]);
    },
  );

  it('asks a person first where the template asks for critical actions; denied, nothing is sent', async () => {
    const { call, pressed } = setup('terminal', 'full-auto', 'L4');
    await call('type_text', { text: 'rm -rf ~' });
    const enter = call('key_press', { keys: ['enter'] });
    await expect.poll(() => approvals.list('pending', 10).length).toBe(1);
    const [pending] = approvals.list('pending', 10);
    expect(pending).toMatchObject({ tool: 'key_press', risk: 'critical' });
    expect(pending?.findings[0]).toMatch(/^presses enter in the terminal xterm .*, which runs: rm -rf ~$/);
    approvals.answer(pending!.id, { decision: 'deny', scope: 'once' }, 'test');
    expect(await enter).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED' } });
    expect(pressed()).toEqual([]);
  });

  it('sends nothing when another window came to the front while the person was asked', async () => {
    const { call, pressed, fake } = setup('terminal', 'full-auto', 'L4');
    await call('type_text', { text: 'rm -rf ~/Projects/app/build' });
    const enter = call('key_press', { keys: ['enter'] });
    await expect.poll(() => approvals.list('pending', 10).length).toBe(1);
    await fake.desktop.windows.focusWindow('0x2');
    const [pending] = approvals.list('pending', 10);
    approvals.answer(pending!.id, { decision: 'approve', scope: 'once' }, 'test');
    const result = await enter;
    expect(result).toMatchObject({ ok: false, error: { code: 'TARGET_CHANGED' } });
    expect(!result.ok && result.error.message).toMatch(/The window in front changed after this call was decided/);
    expect(pressed()).toEqual([]);
  });

  it('a paste of the clipboard, then Enter, runs what the clipboard held', async () => {
    const { call, pressed, findings } = setup('terminal');
    expect((await call('clipboard_write', { content: 'rm -rf ~' })).ok).toBe(true);
    expect((await call('key_press', { keys: ['ctrl', 'shift', 'v'] })).ok).toBe(true);
    const result = await call('key_press', { keys: ['enter'] });
    expect(result).toMatchObject({ ok: false, error: { code: 'POLICY_BLOCKED' } });
    expect(findings()[0]).toMatch(/which runs: rm -rf ~$/);
    expect(pressed()).toEqual([['ctrl', 'shift', 'v']]);
  });

  it('a line break typed with the command runs it as it is typed', async () => {
    const { call, fake } = setup('terminal');
    const result = await call('type_text', { text: 'rm -rf ~\n' });
    expect(result).toMatchObject({ ok: false, error: { code: 'POLICY_BLOCKED' } });
    expect(fake.actions.filter((action) => action.op === 'typeText')).toEqual([]);
  });

  it('everyday commands in the terminal are not asked', async () => {
    const { call, pressed } = setup('terminal');
    await call('type_text', { text: 'ls -la ~/Projects' });
    const result = await call('key_press', { keys: ['enter'] });
    expect(result).toMatchObject({ ok: true, decision: { action: 'auto_approve' } });
    expect(pressed()).toEqual([['enter']]);
  });
});

describe('a line that would leave the sandbox asks in the terminal too', () => {
  it('echo into a file outside the allowed folders, then Enter: asked, nothing pressed until answered', async () => {
    const { call, pressed } = setup('terminal');
    await call('type_text', { text: 'echo overwritten > ~/victim1.txt' });
    const pressing = call('key_press', { keys: ['enter'] });
    await expect.poll(() => approvals.list('pending', 10).length).toBe(1);
    expect(pressed()).toEqual([]);
    const [pending] = approvals.list('pending', 10);
    approvals.answer(pending!.id, { decision: 'deny', scope: 'once' }, 'test');
    expect(await pressing).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED' } });
    expect(pressed()).toEqual([]);
  });
});

describe('typing into other windows stays as it was', () => {
  it('the same typing and Enter in a text editor is not asked', async () => {
    const { call, pressed } = setup('editor');
    expect(await call('type_text', { text: 'rm -rf ~' })).toMatchObject({
      ok: true,
      decision: { action: 'auto_approve' },
    });
    expect(await call('key_press', { keys: ['enter'] })).toMatchObject({
      ok: true,
      decision: { action: 'auto_approve' },
    });
    expect(pressed()).toEqual([['enter']]);
  });
});
