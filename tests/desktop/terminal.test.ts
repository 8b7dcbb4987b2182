import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { AppError } from '@nextai/shared';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { createTerminalHandlers, type TerminalOptions } from '../../native-host/src/tools/terminal/index.js';
import { callTool, testContext, testServices } from '../../native-host/src/tools/test-support.js';

/**
 * bash_execute and bash_session with real shells on a real pty (node-pty): no X server needed,
 * but the calls run real processes, time out for real and are checked through /proc.
 */

interface ExecOutput {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  session_id: string;
  timed_out?: boolean;
  truncated?: boolean;
  notices?: string[];
}

interface SessionOutput {
  session_id?: string;
  sessions: { session_id: string; shell: string; cwd?: string; created_at: string }[];
}

type Group = ReturnType<typeof createTerminalHandlers>;

const groups: Group[] = [];
let scratch: string;

function terminal(options: TerminalOptions = {}) {
  const group = createTerminalHandlers(testServices(createFakeDesktop().desktop), options);
  groups.push(group);
  const exec = (input: Record<string, unknown>, context = testContext()) =>
    callTool('bash_execute', group.handlers.bash_execute, input, context) as Promise<ExecOutput>;
  const session = (input: Record<string, unknown>) =>
    callTool('bash_session', group.handlers.bash_session, input) as Promise<SessionOutput>;
  return { group, exec, session };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('Expected the call to fail.');
}

/** Alive means in /proc and not a zombie (a killed orphan may wait for a reaper in a container). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `condition` every 20 ms until it holds, for at most 5 s. */
const waitFor = (condition: () => boolean, what: string) =>
  vi.waitFor(
    () => {
      if (!condition()) throw new Error(`waiting for ${what}`);
    },
    { timeout: 5_000, interval: 20 },
  );

/** Pids of live processes whose command line contains `text`. */
function processesWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes(text) && alive(Number(entry))) found.push(Number(entry));
    } catch {
      continue;
    }
  }
  return found;
}

/** `label <pid>` lines printed by a command. */
function pids(stdout: string, label: string): number[] {
  return [...stdout.matchAll(new RegExp(`^${label} (\\d+)$`, 'gm'))].map((match) => Number(match[1]));
}

beforeAll(() => {
  scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-terminal-test-')));
});

afterAll(async () => {
  await Promise.all(groups.map((group) => group.dispose?.()));
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('state and streams', () => {
  it('keeps cd and exported variables within a session, not across sessions', async () => {
    const { exec, session } = terminal();
    await exec({ command: `cd ${scratch} && export NEXTAI_T=kept && PLAIN=also` });
    const same = await exec({ command: 'pwd; echo "$NEXTAI_T $PLAIN"' });
    expect(same.stdout).toBe(`${scratch}\nkept also\n`);
    expect(same.session_id).toBe('default');

    const created = await session({ action: 'create' });
    const other = await exec({ command: 'pwd; echo "[${NEXTAI_T-unset}]"', session_id: created.session_id });
    expect(other.stdout).toBe(`${os.homedir()}\n[unset]\n`);
    expect(other.session_id).toBe(created.session_id);

    const listed = await session({ action: 'list' });
    expect(listed.sessions.map((entry) => [entry.session_id, entry.cwd])).toEqual([
      ['default', scratch],
      [created.session_id, os.homedir()],
    ]);
  });

  it('reports stdout, stderr and the exit code separately', async () => {
    const { exec } = terminal();
    const result = await exec({ command: 'echo out1; echo err1 >&2; echo out2; printf err2 >&2; (exit 3)' });
    expect(result).toMatchObject({ stdout: 'out1\nout2\n', stderr: 'err1\nerr2', exit_code: 3, timed_out: false });
    expect(result.notices).toBeUndefined();
  });

  it('reports exit codes truthfully: 0, 1, 127, 130 and 128 + signal', async () => {
    const { exec } = terminal();
    expect((await exec({ command: 'true' })).exit_code).toBe(0);
    expect((await exec({ command: 'false' })).exit_code).toBe(1);
    const missing = await exec({ command: 'nextai-no-such-command --flag' });
    expect(missing.exit_code).toBe(127);
    expect(missing.stderr).toContain('command not found');
    expect((await exec({ command: "sh -c 'kill -TERM $$'" })).exit_code).toBe(143);
    expect((await exec({ command: "sh -c 'kill -KILL $$'" })).exit_code).toBe(137);

    // An interrupt ends the whole command, as Ctrl-C at a terminal does; the session carries on.
    const interrupted = await exec({ command: 'echo before; kill -INT $$; echo after' });
    expect(interrupted).toMatchObject({ stdout: 'before\n', exit_code: 130, timed_out: false });
    expect(interrupted.notices?.join(' ')).toContain('before its end');
    expect((await exec({ command: 'echo fine' })).stdout).toBe('fine\n');
  });

  it('gives commands an empty stdin, so one that reads input does not hang', async () => {
    const { exec } = terminal();
    expect(await exec({ command: 'cat', timeout: 10_000 })).toMatchObject({ stdout: '', exit_code: 0 });
    const read = await exec({ command: 'read -r line; echo "status $? [$line]"', timeout: 10_000 });
    expect(read).toMatchObject({ stdout: 'status 1 []\n', timed_out: false });
    expect((await exec({ command: 'readlink /proc/self/fd/0' })).stdout).toBe('/dev/null\n');
  });

  it('runs the command text byte for byte: quotes, heredocs, several lines, Unicode', async () => {
    const { exec } = terminal();
    const command = [
      `printf '%s\\n' "it's" 'say "hi"' '$HOME' '中文 ✓'`,
      "cat <<'EOF'",
      'line with `backticks` and \\ backslash',
      'EOF',
    ].join('\n');
    const result = await exec({ command });
    expect(result.stdout).toBe(`it's\nsay "hi"\n$HOME\n中文 ✓\nline with \`backticks\` and \\ backslash\n`);
  });

  it('has a small environment: no secrets of the daemon, no pager, a dumb terminal', async () => {
    process.env.NEXTAI_TEST_API_KEY = 'secret-value';
    try {
      const { exec } = terminal();
      const result = await exec({
        command: 'echo "[${NEXTAI_TEST_API_KEY-unset}] $TERM $PAGER $GIT_PAGER"; env | grep -c SECRET || true',
      });
      expect(result.stdout).toBe('[unset] dumb cat cat\n0\n');
    } finally {
      delete process.env.NEXTAI_TEST_API_KEY;
    }
  });

  it('stays correct over 20 quick calls in a row (nothing leaks between calls)', async () => {
    const { exec } = terminal();
    for (let index = 0; index < 20; index += 1) {
      const result = await exec({
        // Text that looks like the host's markers must come back as plain output.
        command: `echo call-${index}; echo __NEXTAI_END_${index}__ >&2; (exit ${index % 4})`,
      });
      expect(result).toMatchObject({
        stdout: `call-${index}\n`,
        stderr: `__NEXTAI_END_${index}__\n`,
        exit_code: index % 4,
      });
      expect(result.notices).toBeUndefined();
    }
  });

  it('drops what a background job prints after its call ended instead of giving it to a later call', async () => {
    const { exec } = terminal();
    const first = await exec({ command: "(sleep 0.3; printf 'l%s\\n' ate; printf 'l%s\\n' ate-err >&2) & echo now" });
    expect(first.stdout).toBe('now\n');
    const marker = path.join(scratch, 'late-done');
    // Ends after the background job printed: its output had every chance to arrive.
    const second = await exec({ command: `sleep 0.6; echo next; touch ${marker}` });
    expect(second).toMatchObject({ stdout: 'next\n', exit_code: 0 });
    // The shell's own job report may be there ("[1]+ Done …"), as at a terminal; the job's output is not.
    expect(second.stderr).not.toContain('late');
    expect(fs.existsSync(marker)).toBe(true);
  });

  it('serialises concurrent calls on one session', async () => {
    const { exec } = terminal();
    const log = path.join(scratch, 'serial.log');
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map((index) =>
        exec({ command: `echo start-${index} >> ${log}; sleep 0.1; echo end-${index} >> ${log}; echo out-${index}` }),
      ),
    );
    expect(results.map((result) => result.stdout)).toEqual([0, 1, 2, 3, 4].map((index) => `out-${index}\n`));
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(10);
    for (let pair = 0; pair < 5; pair += 1) {
      const index = (lines[2 * pair] as string).replace('start-', '');
      expect(lines[2 * pair + 1]).toBe(`end-${index}`);
    }
  });
});

describe('output', () => {
  it('caps long output with a notice, keeping its start and its end', async () => {
    const { exec } = terminal();
    const result = await exec({ command: 'seq 1 300000; echo done >&2' });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.stdout.endsWith('299999\n300000\n')).toBe(true);
    expect(result.stdout).toMatch(/bytes omitted: the output was 1988895 bytes/);
    expect(result.stdout.length).toBeLessThan(110_000);
    expect(result).toMatchObject({ stderr: 'done\n', exit_code: 0 });
  });

  it('uses a configured cap per stream', async () => {
    const { exec } = terminal({ outputCap: 1_000 });
    const result = await exec({ command: "head -c 5000 /dev/zero | tr '\\0' a; echo; echo small >&2" });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toMatch(/^a{500}\n\[… 4001 bytes omitted/);
    expect(result.stderr).toBe('small\n');
  });

  it('survives binary and invalid UTF-8 output', async () => {
    const { exec } = terminal({ outputCap: 20_000 });
    const bytes = await exec({ command: "printf 'ok\\377\\376\\000\\200end\\n'" });
    expect(bytes.exit_code).toBe(0);
    expect(bytes.stdout).toBe('ok\uFFFD\uFFFD\0\uFFFDend\n');
    const random = await exec({ command: 'head -c 200000 /dev/urandom; echo tail >&2' });
    expect(random).toMatchObject({ truncated: true, stderr: 'tail\n', exit_code: 0 });
    expect(() => JSON.stringify(random)).not.toThrow();
    expect((await exec({ command: 'echo next' })).stdout).toBe('next\n');
  });
});

describe('time-outs and cancellation', () => {
  it('kills what a timed-out call started, children and grandchildren, and keeps the session', async () => {
    const { exec } = terminal();
    await exec({ command: `cd ${scratch}; export KEEP=yes` });
    // A background job of an earlier call is not this call's to kill.
    const earlier = pids((await exec({ command: 'sleep 100 & echo "earlier $!"' })).stdout, 'earlier');
    const result = await exec({
      command: [
        'sleep 100 & echo "background $!"',
        `sh -c 'sleep 100 & echo "grandchild $!"; sleep 100' & echo "child $!"`,
        'sleep 0.3; echo partial; echo partial-err >&2',
        'sleep 100',
        // Stopping means stopping: the rest of the command does not run once its program is killed.
        `touch ${scratch}/ran-on`,
      ].join('\n'),
      timeout: 1_500,
    });
    expect(fs.existsSync(`${scratch}/ran-on`)).toBe(false);
    expect(result).toMatchObject({ timed_out: true, exit_code: null });
    expect(result.stdout).toContain('partial\n');
    expect(result.stderr).toContain('partial-err\n');
    expect(result.notices?.join(' ')).toMatch(/did not finish within 1500 ms/);
    const started = [
      ...pids(result.stdout, 'background'),
      ...pids(result.stdout, 'child'),
      ...pids(result.stdout, 'grandchild'),
    ];
    expect(started).toHaveLength(3);
    await waitFor(() => started.every((pid) => !alive(pid)), 'the processes of the timed-out call to end');
    expect(earlier.every(alive)).toBe(true);

    const after = await exec({ command: 'pwd; echo $KEEP' });
    expect(after).toMatchObject({ stdout: `${scratch}\nyes\n`, exit_code: 0 });
    await exec({ command: `kill ${earlier.join(' ')}` });
  });

  it('interrupts a command that runs inside the shell itself and keeps the session', async () => {
    const { exec } = terminal();
    await exec({ command: 'export KEEP=loop' });
    const result = await exec({ command: 'echo spinning; while :; do :; done', timeout: 800 });
    expect(result).toMatchObject({ timed_out: true, exit_code: null });
    expect(result.stdout).toBe('spinning\n');
    expect((await exec({ command: 'echo $KEEP' })).stdout).toBe('loop\n');
  });

  it('kills the running command when the call is aborted, and keeps the session', async () => {
    const { exec } = terminal();
    await exec({ command: 'export KEEP=abort' });
    const controller = new AbortController();
    const tag = `10${process.pid}.5`;
    const running = exec(
      {
        command: `sh -c 'sleep ${tag}' & echo "child $!"; sleep ${tag}; touch ${scratch}/aborted-ran-on`,
        timeout: 60_000,
      },
      { ...testContext(), signal: controller.signal },
    );
    await waitFor(() => processesWith(`sleep ${tag}`).length >= 2, 'both sleeps to start');
    const sleeping = processesWith(`sleep ${tag}`);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ timed_out: false, exit_code: null });
    expect(result.notices?.join(' ')).toMatch(/cancelled/);
    await waitFor(() => sleeping.every((pid) => !alive(pid)), 'the aborted command to end');
    expect(fs.existsSync(`${scratch}/aborted-ran-on`)).toBe(false);
    expect((await exec({ command: 'echo $KEEP' })).stdout).toBe('abort\n');
  });

  it('stops a call aborted at any moment of its start, without running the rest of it', async () => {
    const { exec } = terminal();
    const flag = path.join(scratch, 'early-abort-ran-on');
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const controller = new AbortController();
      const running = exec({ command: `sleep 100; touch ${flag}` }, { ...testContext(), signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, attempt % 4));
      controller.abort();
      const result = await running;
      expect(result.exit_code).toBeNull();
      // The next call works, in this shell or (rarely, when the interrupt met the shell while it
      // was reading the call) in a new one that says so.
      expect((await exec({ command: 'echo ok' })).stdout).toBe('ok\n');
    }
    expect(fs.existsSync(flag)).toBe(false);
  });

  it('does not run a queued call whose signal aborted while it waited', async () => {
    const { exec } = terminal();
    const controller = new AbortController();
    const first = exec({ command: 'sleep 0.5; echo first' });
    const second = exec(
      { command: `touch ${scratch}/must-not-exist` },
      { ...testContext(), signal: controller.signal },
    );
    controller.abort();
    expect((await rejection(second)).code).toBe('EMERGENCY_STOPPED');
    expect((await first).stdout).toBe('first\n');
    expect(fs.existsSync(`${scratch}/must-not-exist`)).toBe(false);
  });
});

describe('sessions', () => {
  it('restarts a shell that a command ended, and says so', async () => {
    const { exec } = terminal();
    await exec({ command: `cd ${scratch}; export GONE=1` });
    const ended = await exec({ command: 'echo bye; exit 7' });
    expect(ended).toMatchObject({ stdout: 'bye\n', exit_code: 7 });
    expect(ended.notices?.join(' ')).toMatch(/ended the shell/);
    const next = await exec({ command: 'echo "[${GONE-unset}]"; pwd' });
    expect(next.stdout).toBe(`[unset]\n${scratch}\n`);
    expect(next.notices?.join(' ')).toMatch(/runs in a new shell/);
    expect((await exec({ command: 'echo quiet' })).notices).toBeUndefined();
  });

  it('creates, lists and kills sessions; a killed session is NOT_FOUND', async () => {
    const { exec, session } = terminal();
    const named = await session({ action: 'create', session_id: 'build' });
    expect(named.session_id).toBe('build');
    const { stdout } = await exec({ command: 'sleep 100 & echo "bg $!"', session_id: 'build' });
    const [background] = pids(stdout, 'bg');
    expect(alive(background as number)).toBe(true);

    const killed = await session({ action: 'kill', session_id: 'build' });
    expect(killed.sessions.map((entry) => entry.session_id)).not.toContain('build');
    await waitFor(() => !alive(background as number), 'the killed session’s background job to end');

    await exec({ command: 'true' });
    const gone = await rejection(exec({ command: 'echo hi', session_id: 'build' }));
    expect(gone.code).toBe('NOT_FOUND');
    expect(gone.message).toContain('Existing sessions: default');
    expect((await rejection(session({ action: 'kill', session_id: 'build' }))).code).toBe('NOT_FOUND');
    expect((await rejection(session({ action: 'kill' }))).code).toBe('INVALID_INPUT');
    expect((await rejection(session({ action: 'create', session_id: 'default' }))).code).toBe('INVALID_INPUT');
    expect((await rejection(session({ action: 'create', session_id: '../x' }))).code).toBe('INVALID_INPUT');
  });

  it('runs sh (dash) sessions with the same protocol', async () => {
    const { exec, session } = terminal();
    const created = await session({ action: 'create', shell: 'sh' });
    expect(created.sessions.find((entry) => entry.session_id === created.session_id)?.shell).toBe('sh');
    const id = created.session_id;
    await exec({ command: `cd ${scratch}; export DASH=1`, session_id: id });
    const result = await exec({ command: 'pwd; echo $DASH; echo e >&2; nextai-missing', session_id: id });
    expect(result).toMatchObject({ stdout: `${scratch}\n1\n`, exit_code: 127 });
    expect(result.stderr).toMatch(/^e\n.*not found/s);
  });

  it('refuses an unknown shell and more sessions than the limit, clearly', async () => {
    const { session, exec } = terminal({ maxSessions: 2 });
    const unknown = await rejection(session({ action: 'create', shell: 'fish' }));
    expect(unknown.code).toBe('INVALID_INPUT');
    expect(unknown.message).toMatch(/Shell "fish" is not supported on linux\. Use one of: bash, sh, dash/);
    expect((await session({ action: 'list' })).sessions).toEqual([]);

    await session({ action: 'create' });
    await exec({ command: 'true' });
    const full = await rejection(session({ action: 'create' }));
    expect(full.code).toBe('INVALID_INPUT');
    expect(full.message).toMatch(/at most 2/);
  });

  it('resolves working_dir against the session’s directory and home, and checks it', async () => {
    const { exec } = terminal();
    fs.mkdirSync(path.join(scratch, 'wd', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(scratch, 'wd', 'file.txt'), 'x');
    expect((await exec({ command: 'pwd', working_dir: path.join(scratch, 'wd') })).stdout).toBe(`${scratch}/wd\n`);
    expect((await exec({ command: 'pwd', working_dir: 'sub' })).stdout).toBe(`${scratch}/wd/sub\n`);
    // The session stays where the call went.
    expect((await exec({ command: 'pwd' })).stdout).toBe(`${scratch}/wd/sub\n`);
    expect((await exec({ command: 'pwd', working_dir: '~' })).stdout).toBe(`${os.homedir()}\n`);

    const missing = await rejection(exec({ command: 'pwd', working_dir: path.join(scratch, 'nope') }));
    expect(missing.code).toBe('NOT_FOUND');
    const file = await rejection(exec({ command: 'pwd', working_dir: path.join(scratch, 'wd', 'file.txt') }));
    expect(file.code).toBe('INVALID_INPUT');
  });

  it('ends every session and what it started on dispose', async () => {
    const { group, exec, session } = terminal();
    const one = pids((await exec({ command: 'sleep 100 & echo "bg $!"' })).stdout, 'bg');
    const created = await session({ action: 'create' });
    const two = pids(
      (await exec({ command: 'sleep 100 & echo "bg $!"', session_id: created.session_id })).stdout,
      'bg',
    );
    await group.dispose?.();
    await waitFor(() => [...one, ...two].every((pid) => !alive(pid)), 'the sessions’ processes to end');
    expect((await rejection(exec({ command: 'true' }))).code).toBe('UNAVAILABLE');
  });
});
