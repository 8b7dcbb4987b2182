import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema, type EventData, type SecurityConfig } from '@nextai/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { dataPaths } from '../../native-host/src/core/paths.js';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { createSandbox } from '../../native-host/src/sandbox/select.js';
import { SandboxService } from '../../native-host/src/sandbox/service.js';
import { createTerminalHandlers } from '../../native-host/src/tools/terminal/index.js';
import { callTool, testContext, testServices } from '../../native-host/src/tools/test-support.js';

/**
 * A person narrows the allowed folders while shell sessions run: real shells on a
 * pty in bubblewrap. A shell keeps the binds its sandbox started with, so the one that could write
 * to a folder no longer allowed is ended — with what it left running — and the session's next call
 * runs in a new shell, under the new folders, and says why. Widening ends nothing.
 */

interface ExecOutput {
  stdout: string;
  stderr: string;
  exit_code: number | null;
  notices?: string[];
  sandbox?: string;
}

let root: string;
let home: string;
let data: string;
let a: string;
let b: string;
let security: SecurityConfig;
let service: SandboxService;
const groups: ReturnType<typeof createTerminalHandlers>[] = [];

const allow = (...folders: string[]) => {
  security = securityConfigSchema.parse({ allowed_directories: folders });
};

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-narrow-')));
  home = path.join(root, 'home');
  data = path.join(root, 'data');
  a = path.join(home, 'Projects', 'a');
  b = path.join(home, 'Projects', 'b');
  for (const dir of [a, b, path.join(home, 'Projects', 'c'), path.join(data, 'run', 'terminals')]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  service = new SandboxService({
    sandbox: createSandbox('linux'),
    platform: 'linux',
    homeDir: home,
    security: () => security,
    own: [data],
  });
  expect(service.status(), 'bubblewrap must work here (scripts/install-system-deps.sh installs it)').toMatchObject({
    available: true,
  });
});

afterEach(async () => {
  await Promise.all(groups.splice(0).map((group) => group.dispose?.()));
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function terminal() {
  allow('~/Projects/a', '~/Projects/b');
  const events: EventData<'terminal.shell_ended'>[] = [];
  const services = {
    ...testServices(createFakeDesktop().desktop),
    homeDir: home,
    paths: dataPaths(data),
    security: () => security,
    sandbox: service,
    emit: (type: string, event: unknown) => {
      if (type === 'terminal.shell_ended') events.push(event as EventData<'terminal.shell_ended'>);
    },
  };
  const group = createTerminalHandlers(services, { tmpRoot: path.join(data, 'run', 'terminals') });
  groups.push(group);
  const exec = (command: string) =>
    callTool(
      'bash_execute',
      group.handlers.bash_execute,
      { command, timeout: 30_000 },
      {
        ...testContext(),
        sandbox: { mode: 'confined', network: 'none' },
      },
    ) as Promise<ExecOutput>;
  return { group, exec, events };
}

const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a policy change that narrows what a running shell session reaches', () => {
  it('ends the shell that can write to a folder no longer allowed, and its background jobs; the next call says so', async () => {
    const { group, exec, events } = terminal();
    const log = path.join(b, 'background.log');
    const first = await exec(
      `export KEPT=yes; touch ${b}/before && echo wrote; (while :; do echo tick >> ${log}; sleep 0.05; done) >/dev/null 2>&1 &`,
    );
    expect(first).toMatchObject({ stdout: 'wrote\n', exit_code: 0, sandbox: 'confined' });
    await delay(200);
    expect(size(log)).toBeGreaterThan(0);

    allow('~/Projects/a');
    await group.policyChanged();
    expect(events).toEqual([
      { session_id: 'default', shell: 'confined', reason: '~/Projects/b is no longer writable' },
    ]);
    // The background job went with its shell: the file stops growing.
    const stopped = size(log);
    await delay(300);
    expect(size(log)).toBe(stopped);

    const next = await exec(
      `touch ${b}/after; echo status=$?; echo "KEPT=\${KEPT-unset}"; touch ${a}/still && echo a-ok`,
    );
    expect(next.stdout).toBe('status=1\nKEPT=unset\na-ok\n');
    expect(next.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join(b, 'after'))).toBe(false);
    expect(next.notices?.[0]).toMatch(
      /^The shell of terminal session "default" \(in the sandbox, without the network\) was closed because the person narrowed what the sandbox may reach \(~\/Projects\/b is no longer writable\)/,
    );
    // Said once.
    expect((await exec('true')).notices).toBeUndefined();
  });

  it('without an announcement, the next command still does not run in the old shell', async () => {
    const { exec, events } = terminal();
    expect((await exec(`touch ${b}/one && echo ok`)).stdout).toBe('ok\n');
    allow('~/Projects/a');
    const next = await exec(`touch ${b}/two; echo status=$?`);
    expect(next.stdout).toBe('status=1\n');
    expect(fs.existsSync(path.join(b, 'two'))).toBe(false);
    expect(next.notices?.[0]).toMatch(/~\/Projects\/b is no longer writable/);
    expect(events).toHaveLength(1);
  });

  it('a command running in the shell when it is ended is stopped, and its result says why', async () => {
    const { group, exec } = terminal();
    await exec('true');
    const running = exec(`sleep 20; touch ${b}/late`);
    await delay(300);
    allow('~/Projects/a');
    const started = Date.now();
    await group.policyChanged();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.notices?.[0]).toMatch(/~\/Projects\/b is no longer writable.*It was ended while this command ran/);
    expect(fs.existsSync(path.join(b, 'late'))).toBe(false);
  });

  it('a folder newly hidden (a denied pattern added) inside a writable folder ends the shell', async () => {
    const { group, exec } = terminal();
    fs.mkdirSync(path.join(a, 'private'), { recursive: true });
    fs.writeFileSync(path.join(a, 'private', 'key'), 'SECRET\n');
    expect((await exec(`cat ${a}/private/key`)).stdout).toBe('SECRET\n');
    security = securityConfigSchema.parse({
      allowed_directories: ['~/Projects/a', '~/Projects/b'],
      denied_patterns: [...security.denied_patterns, '~/Projects/a/private/**'],
    });
    await group.policyChanged();
    const next = await exec(`cat ${a}/private/key; echo status=$?`);
    expect(next.stdout).not.toContain('SECRET');
    expect(next.notices?.[0]).toMatch(/~\/Projects\/a\/private is now hidden/);
  });

  it('widening the folders, or a change elsewhere in the policy, ends nothing', async () => {
    const { group, exec, events } = terminal();
    await exec('export KEPT=yes');
    allow('~/Projects/a', '~/Projects/b', '~/Projects/c');
    await group.policyChanged();
    security = { ...security, permission_level: 'L4' };
    await group.policyChanged();
    const next = await exec('echo "KEPT=$KEPT"');
    expect(next.stdout).toBe('KEPT=yes\n');
    expect(next.notices).toBeUndefined();
    expect(events).toEqual([]);
  });
});
