import { describe, expect, it } from 'vitest';

import { AgentInputActivity } from '../../gateway/agent-input.js';
import { agentProcessReason, judgeProcess, psFacts, type ProcessFacts } from './agent-process.js';
import { AuthorityGate } from './authority.js';
import { identifyCaller, type Caller } from './caller.js';
import type { AuditEntry } from '../../gateway/audit/index.js';

const DAEMON = 100;

/** A process table: pid → parent, with optional namespaces and marks. */
function facts(
  parents: Record<number, number>,
  extra: { ns?: Record<number, string>; marked?: number[] } = {},
): ProcessFacts {
  return {
    parentOf: (pid) => parents[pid],
    pidNamespaceOf: (pid) => extra.ns?.[pid] ?? 'pid:[1]',
    markedAsAgent: (pid) => extra.marked?.includes(pid) ?? false,
  };
}

describe('agentProcessReason', () => {
  const tree = facts({ 1: 0, [DAEMON]: 1, 200: DAEMON, 201: 200, 202: 201, 300: 1, 301: 300 });

  it('finds every descendant of the daemon, however deep', () => {
    expect(agentProcessReason(200, DAEMON, tree)).toMatch(/started by the agent/);
    expect(agentProcessReason(202, DAEMON, tree)).toMatch(/started by the agent/);
    expect(agentProcessReason(DAEMON, DAEMON, tree)).toMatch(/daemon itself/);
  });

  it("leaves the person's own processes alone", () => {
    expect(agentProcessReason(301, DAEMON, tree)).toBeUndefined();
  });

  it('a process in another PID namespace (the sandbox) is the agent even where its parents look clean', () => {
    const sandboxed = facts({ 1: 0, [DAEMON]: 1, 400: 1 }, { ns: { 400: 'pid:[9]' } });
    expect(agentProcessReason(400, DAEMON, sandboxed)).toMatch(/sandbox/);
  });

  it('a detached, orphaned process keeps the mark the agent gave it', () => {
    const orphan = facts({ 1: 0, [DAEMON]: 1, 500: 1 }, { marked: [500] });
    expect(agentProcessReason(500, DAEMON, orphan)).toMatch(/mark/);
  });

  it('a caller whose parent cannot be read is not taken for the person; a loop in the table ends', () => {
    expect(agentProcessReason(999, DAEMON, facts({}))).toMatch(/cannot be read/);
    expect(agentProcessReason(7, DAEMON, facts({ 7: 8, 8: 7 }))).toMatch(/too deep/);
  });

  it("reads macOS's ps listing", () => {
    const listing = psFacts(`  100     1\n  200   100\n  300     1\nnonsense\n`);
    expect(agentProcessReason(200, DAEMON, listing)).toMatch(/started by the agent/);
    expect(agentProcessReason(300, DAEMON, listing)).toBeUndefined();
  });
});

describe('identifyCaller', () => {
  const tree = facts({ 1: 0, [DAEMON]: 1, 200: DAEMON, 300: 1 });
  const options = { peersKnowable: true };
  /** The verdict the daemon reaches when `pid` connects. */
  const connected = (pid: number) => judgeProcess({ ok: true, peer: { pid } }, DAEMON, tree);
  const info = (kind: 'cli' | 'extension' | 'mcp' | 'test', name = 'x') => ({
    kind,
    name,
    version: '1',
    capabilities: [],
    tools: [],
  });

  it('a process the agent started is the agent whatever it claims to be', () => {
    for (const kind of ['cli', 'extension', 'test'] as const) {
      const caller = identifyCaller(info(kind), connected(200), options);
      expect(caller.kind).toBe('agent');
      expect(caller.actor).toContain(`claiming to be ${kind}:x`);
    }
  });

  it("the person's CLI, the panel's bridge and MCP clients are told apart", () => {
    expect(identifyCaller(info('cli', 'nextai-cli'), connected(300), options)).toMatchObject({
      kind: 'person',
      actor: 'person (CLI, process 300)',
    });
    expect(identifyCaller(info('extension', 'chromium'), connected(300), options).kind).toBe('panel');
    expect(identifyCaller(info('mcp', 'cursor'), connected(300), options)).toMatchObject({
      kind: 'mcp',
      actor: 'mcp:cursor',
    });
  });

  it('the verdict is reached when the process connects: a pid reused afterwards changes nothing', () => {
    const facts = { 1: 0, [DAEMON]: 1, 200: DAEMON } as Record<number, number>;
    const verdict = judgeProcess({ ok: true, peer: { pid: 200 } }, DAEMON, {
      parentOf: (pid) => facts[pid],
      pidNamespaceOf: () => 'pid:[1]',
    });
    // The agent's process exits; its pid goes to something that looks like the person's.
    facts[200] = 1;
    expect(identifyCaller(info('cli'), verdict, options).kind).toBe('agent');
  });

  it('where the kernel could name the peer but did not, the caller is unverified; on Windows the claim stands', () => {
    const unknown = judgeProcess({ ok: false, reason: 'no fd' }, DAEMON, tree);
    expect(identifyCaller(info('cli'), unknown, options).kind).toBe('unverified');
    expect(identifyCaller(info('cli'), unknown, { ...options, peersKnowable: false }).kind).toBe('person');
    expect(identifyCaller(undefined, connected(300), options).kind).toBe('unverified');
  });
});

describe('AuthorityGate', () => {
  const gate = (input = new AgentInputActivity()) => {
    const rows: AuditEntry[] = [];
    return {
      rows,
      input,
      gate: new AuthorityGate({ audit: { append: (entry) => rows.push(entry) }, agentInput: input }),
    };
  };
  const person: Caller = { kind: 'person', actor: 'person (CLI, process 300)' };
  const panel: Caller = { kind: 'panel', actor: 'person (side panel in chromium)' };

  it('lets the person act and names them', () => {
    const { gate: g, rows } = gate();
    expect(g.require(person, 'answer approval requests', 'approvals.answer')).toBe(person.actor);
    expect(rows).toEqual([]);
  });

  it('refuses the agent, MCP clients and unverified callers with a sentence that says who may, and audits it', () => {
    const { gate: g, rows } = gate();
    const callers: Caller[] = [
      {
        kind: 'agent',
        actor: 'agent (process 200 was started by the agent)',
        reason: 'process 200 was started by the agent',
      },
      { kind: 'mcp', actor: 'mcp:cursor' },
      { kind: 'unverified', actor: 'cli:x', reason: 'no fd' },
    ];
    for (const caller of callers) {
      expect(() => g.require(caller, 'reset the emergency stop', 'safety.reset')).toThrow(
        /Only the person can reset the emergency stop: from the side panel, or with the nextai command/,
      );
    }
    expect(rows.map((row) => [row.kind, row.result, row.actor])).toEqual(
      callers.map((caller) => ['authority', 'refused', caller.actor]),
    );
  });

  it('refuses a panel click that comes while or right after the agent sends input', () => {
    let now = 0;
    const input = new AgentInputActivity(() => now);
    const { gate: g, rows } = gate(input);
    expect(g.require(panel, 'answer approval requests', 'approvals.answer')).toBe(panel.actor);
    const ended = input.begin();
    expect(() => g.require(panel, 'answer approval requests', 'approvals.answer')).toThrow(/may have been the agent's/);
    now = 100;
    ended();
    now = 1000;
    expect(() => g.require(panel, 'answer approval requests', 'approvals.answer')).toThrow(/may have been the agent's/);
    now = 1700;
    expect(g.require(panel, 'answer approval requests', 'approvals.answer')).toBe(panel.actor);
    // The person at the CLI is not affected by the agent's typing.
    input.begin();
    expect(g.require(person, 'answer approval requests', 'approvals.answer')).toBe(person.actor);
    expect(rows).toHaveLength(2);
  });
});

describe('AuthorityGate.refuseAgent', () => {
  it("refuses the agent's processes and a panel click right after the agent's input; lets the person, the panel and MCP clients", () => {
    let now = 0;
    const input = new AgentInputActivity(() => now);
    const rows: AuditEntry[] = [];
    const gate = new AuthorityGate({ audit: { append: (entry) => rows.push(entry) }, agentInput: input });
    const agent: Caller = { kind: 'agent', actor: 'agent (x)', reason: 'process 200 was started by the agent' };
    expect(() => gate.refuseAgent(agent, 'start runs', 'runs.start')).toThrow(
      /Processes the agent started may not start runs/,
    );
    expect(gate.refuseAgent({ kind: 'mcp', actor: 'mcp:cursor' }, 'start runs', 'runs.start')).toBe('mcp:cursor');
    const panel: Caller = { kind: 'panel', actor: 'person (side panel in chromium)' };
    expect(gate.refuseAgent(panel, 'start runs', 'runs.start')).toBe(panel.actor);
    input.begin()();
    now = 500;
    expect(() => gate.refuseAgent(panel, 'start runs', 'runs.start')).toThrow(/may have been the agent's/);
    expect(rows.map((row) => row.details)).toEqual([{ method: 'runs.start' }, { method: 'runs.start' }]);
  });
});
