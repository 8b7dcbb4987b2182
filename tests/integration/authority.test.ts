import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli, startCli } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// The person's authority is the person's alone. Each red-team proof is done for real:
// a process the agent started (through the daemon, outside the sandbox, with the person's
// approval for that one command) tries to answer an approval, lift the stop, change the policy.
let home: TestHome;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home.cleanup();
});

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await runCli([...args, '--json'], home.env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const pendingApprovals = () =>
  json<{ id: string; tool: string; input: Record<string, unknown> }[]>(['approvals', 'list']);

/** The CLI as a command line for a shell the agent runs (its environment has no NEXTAI_HOME). */
const cliLine = (args: string) => `NEXTAI_HOME='${home.dir}' '${process.execPath}' '${CLI_BUNDLE}' ${args}`;

/**
 * Runs `command` as the agent would, outside the sandbox: under the full-auto template the call
 * asks (it runs a script NextAI cannot check), and the person — this test, at the CLI — approves
 * that one command. Resolves with the tool's output.
 */
async function agentRunsOutsideSandbox(command: string): Promise<{ stdout: string; exit_code: number }> {
  const before = new Set((await pendingApprovals()).map((approval) => approval.id));
  const call = startCli(
    [
      'tool',
      'bash_execute',
      JSON.stringify({ command, outside_sandbox: true, justification: 'red-team proof', timeout: 60_000 }),
    ],
    home.env,
  );
  let mine: string | undefined;
  await expect
    .poll(async () => {
      mine = (await pendingApprovals()).find((approval) => !before.has(approval.id))?.id;
      return mine ?? call.output().stderr;
    })
    .toMatch(/^[0-9a-f-]{36}$/);
  expect((await runCli(['approvals', 'approve', mine!], home.env)).code).toBe(0);
  expect(await call.exited, call.output().stderr).toBe(0);
  return JSON.parse(call.output().stdout) as { stdout: string; exit_code: number };
}

/** A home whose policy lets the person approve a critical command (development blocks them outright). */
async function homeThatAsks(): Promise<TestHome> {
  const made = makeHome();
  expect((await runCli(['policy', 'set-template', 'full-auto'], made.env)).code).toBe(0);
  return made;
}

describe("the person's authority", () => {
  it('a process the agent started cannot answer an approval, reset the stop or change the policy; the person can', async () => {
    home = await homeThatAsks();
    // A critical request waits for the person.
    const waiting = startCli(['tool', 'bash_execute', '{"command":"touch /var/tmp/nx-authority-proof"}'], home.env);
    await expect.poll(async () => (await pendingApprovals()).length).toBe(1);
    const [target] = await pendingApprovals();

    const attempt = await agentRunsOutsideSandbox(
      [
        cliLine(`approvals approve ${target!.id}`),
        cliLine('policy set-template observe'),
        cliLine('stop --reset'),
        cliLine('tool system_info'),
        cliLine('daemon stop'),
        cliLine('sessions list'),
        cliLine('schedule list'),
      ].join(' 2>&1; ') + ' 2>&1; true',
    );
    expect(attempt.stdout).toMatch(/Only the person can answer approval requests/);
    expect(attempt.stdout).toMatch(/Only the person can change the approval policy/);
    expect(attempt.stdout).toMatch(/Only the person can reset the emergency stop/);
    expect(attempt.stdout).toMatch(/started by the agent/);
    // Nor may it call tools around its run, or stop the daemon; reading stays open.
    expect(attempt.stdout).toMatch(/Processes the agent started may not call NextAI's tools directly/);
    expect(attempt.stdout).toMatch(/Processes the agent started may not stop the daemon/);
    expect(attempt.stdout).toMatch(/Processes the agent started may not read conversations/);
    expect(attempt.stdout).toMatch(/No scheduled tasks/);

    // Nothing changed: the request still waits, the template is the default one.
    expect((await pendingApprovals()).map((approval) => approval.id)).toEqual([target!.id]);
    expect(await json(['policy', 'show'])).toMatchObject({ project: { template: 'full-auto' } });
    const refused = (
      await json<{ kind: string; entry: { actor?: string; details?: { method?: string } } }[]>([
        'audit',
        'list',
        '--limit',
        '200',
      ])
    ).filter((record) => record.kind === 'authority');
    expect(refused.map((record) => record.entry.details?.method).sort()).toEqual([
      'approvals.answer',
      'daemon.shutdown',
      'policy.set_template',
      'safety.reset',
      'sessions.list',
      'tools.call',
    ]);
    for (const record of refused) expect(record.entry.actor).toMatch(/^agent \(process \d+ was started by the agent/);

    // The person answers; the audit row names them.
    expect((await runCli(['approvals', 'deny', target!.id], home.env)).code).toBe(0);
    expect(await waiting.exited).toBe(1);
    const approval = (await json<{ kind: string; entry: { actor?: string } }[]>(['audit', 'list'])).find(
      (record) => record.kind === 'approval',
    );
    expect(approval?.entry.actor).toMatch(/^person \(CLI, process \d+\)$/);
  });

  it('a detached background job the agent left behind is ended by the stop, so it cannot lift it', async () => {
    home = await homeThatAsks();
    // Outside NextAI's data folder, which nothing the agent runs may write.
    const proof = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-proof-'));
    const marker = path.join(proof, 'reset-attempt.txt');
    const pidFile = path.join(proof, 'job.pid');
    // It detaches (setsid, its shell exits), says who it is, waits for the stop, then tries to
    // reset it. (A reset from the agent's processes is refused: see the test above.)
    await agentRunsOutsideSandbox(
      `setsid sh -c "echo \\$\\$ > '${pidFile}'; sleep 30; ${cliLine('stop --reset').replace(/"/g, '\\"')} > '${marker}' 2>&1" > /dev/null 2>&1 < /dev/null &`,
    );
    await expect
      .poll(() => (fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : ''), { timeout: 15_000 })
      .toMatch(/^\d+$/);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(isRunning(pid)).toBe(true);
    expect((await runCli(['stop', '--reason', 'panic'], home.env)).code).toBe(0);
    // The stop found it by the mark NextAI put in its environment, though it left the process tree.
    await expect.poll(() => isRunning(pid), { timeout: 15_000 }).toBe(false);
    expect(fs.existsSync(marker)).toBe(false);
    expect(await json(['stop', '--status'])).toMatchObject({ active: true });
  });

  it('deleting the stop from the database lifts nothing, and audit verify names it', async () => {
    home = makeHome();
    expect((await runCli(['stop', '--reason', 'panic'], home.env)).code).toBe(0);
    expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);
    // (A daemon stopped on purpose stays stopped until started again.)
    const db = new Database(path.join(home.dir, 'data.db'));
    db.prepare('DELETE FROM safety_state').run();
    db.close();
    expect((await runCli(['daemon', '--detach'], home.env)).code).toBe(0);
    expect(await json(['stop', '--status'])).toMatchObject({ active: true, reason: 'panic' });
    const verify = await runCli(['audit', 'verify'], home.env);
    expect(verify.code).not.toBe(0);
    expect(verify.stdout + verify.stderr).toMatch(/lifted outside NextAI/);
    // The person resets it; then everything agrees again.
    expect((await runCli(['stop', '--reset'], home.env)).code).toBe(0);
    expect(await json(['stop', '--status'])).toMatchObject({ active: false });
    expect((await runCli(['audit', 'verify'], home.env)).code).toBe(0);
  });

  it('a client cannot name a run or bring a grant to a tool call; the refusal is audited', async () => {
    home = makeHome();
    expect((await runCli(['daemon', '--detach'], home.env)).code).toBe(0);
    const client = await DaemonClient.connect(dataPaths(home.dir), {
      start: false,
      client: { kind: 'test', name: 'forger' },
    });
    try {
      await expect(
        client.peer.request('tools.call', { name: 'system_info', input: {}, run_id: 'some-run' }),
      ).rejects.toThrow(/run_id is set by NextAI's run engine/);
      await expect(
        client.peer.request('tools.call', {
          name: 'system_info',
          input: {},
          grant: { tools: ['system_info'] },
        }),
      ).rejects.toThrow(/grant is set by NextAI's run engine/);
    } finally {
      client.close();
    }
    const refused = (
      await json<{ kind: string; entry: { details?: { run_id?: string } } }[]>(['audit', 'list'])
    ).filter((record) => record.kind === 'authority');
    expect(refused).toHaveLength(2);
    expect(refused.some((record) => record.entry.details?.run_id === 'some-run')).toBe(true);
  });
});

/** Whether a process with this pid exists (and is not a zombie waiting for its parent). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
