import fs from 'node:fs';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { exitOf, runCli, spawnDaemon, startCli } from '../support/cli.js';
import { daemonPidsOf, isAlive, makeHome, readPid, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

let home: TestHome;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home.cleanup();
});

async function statusJson(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const result = await runCli(['status', '--json'], env);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('nextai daemon', () => {
  it('reports a stopped daemon as running: false, then a started one as running: true', async () => {
    home = makeHome();
    const down = await runCli(['status', '--json'], home.env);
    expect(down.code).toBe(3);
    expect(JSON.parse(down.stdout)).toMatchObject({ running: false, data_dir: home.dir, platform: 'linux' });

    const started = await runCli(['daemon', '--detach'], home.env);
    expect(started).toMatchObject({ code: 0, stdout: `daemon started for ${home.dir}\n` });
    const up = await statusJson(home.env);
    expect(up).toMatchObject({ running: true, version: '0.1.0', data_dir: home.dir, platform: 'linux', clients: [] });
    expect(up.pid).toBe(readPid(path.join(home.dir, 'run', 'daemon.pid')));
  });

  it('keeps its socket and files private to the user, and the database in WAL mode', async () => {
    home = makeHome();
    await runCli(['daemon', '--detach'], home.env);
    const mode = (file: string) => fs.statSync(path.join(home.dir, file)).mode & 0o777;
    expect(mode('.')).toBe(0o700);
    expect(mode('run')).toBe(0o700);
    expect(mode('run/daemon.sock')).toBe(0o600);
    expect(mode('data.db')).toBe(0o600);
    const db = new Database(path.join(home.dir, 'data.db'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a second daemon for the same data directory with a clear message', async () => {
    home = makeHome();
    await runCli(['daemon', '--detach'], home.env);
    const firstPid = readPid(path.join(home.dir, 'run', 'daemon.pid'));
    const second = spawnDaemon(home.env);
    let stderr = '';
    second.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(second)).toBe(4);
    expect(stderr).toContain(`Another daemon (pid ${firstPid}) is already running for ${home.dir}`);
    expect((await statusJson(home.env)).pid).toBe(firstPid);
  });

  it('lets exactly one of several daemons started at once win', async () => {
    home = makeHome();
    const starts = await Promise.all([1, 2, 3, 4].map(() => runCli(['daemon', '--detach'], home.env)));
    expect(starts.map((result) => result.code)).toEqual([0, 0, 0, 0]);
    expect(starts.filter((result) => result.stdout.startsWith('daemon started')).length).toBeGreaterThanOrEqual(1);
    const status = await statusJson(home.env);
    // The daemons that lost the race exit on their own; wait for that, then only one is left.
    await expect.poll(() => daemonPidsOf(home.dir)).toEqual([String(status.pid)]);
  });

  it('starts cleanly over the stale socket of a daemon that was killed, keeping its events', async () => {
    home = makeHome();
    await runCli(['tool', 'system_info', '{"categories":["os"]}'], home.env);
    // A shell session (full auto, so no person is asked): its private folder is what a killed
    // daemon leaves behind.
    fs.writeFileSync(
      path.join(home.dir, 'config.json'),
      JSON.stringify({ projects: { default_approval_template: 'full-auto' } }),
      { mode: 0o600 },
    );
    const shell = await runCli(['tool', 'bash_execute', '{"command":"echo ready"}'], home.env);
    expect(shell.code, shell.stderr).toBe(0);
    const terminals = path.join(home.dir, 'run', 'terminals');
    // The session's private folder, and its sandbox's private /tmp.
    const left = fs.readdirSync(terminals).sort();
    expect(left).toEqual([expect.stringMatching(/^nextai-sandbox-tmp-/), expect.stringMatching(/^nextai-terminal-/)]);
    const before = await statusJson(home.env);
    process.kill(before.pid as number, 'SIGKILL');
    await expect.poll(() => isAlive(before.pid as number)).toBe(false);
    expect(fs.existsSync(path.join(home.dir, 'run', 'daemon.sock'))).toBe(true);

    const again = await runCli(['tool', 'system_info', '{"categories":["os"]}'], home.env);
    expect(again.code).toBe(0);
    const after = await statusJson(home.env);
    expect(after.pid).not.toBe(before.pid);
    // The killed daemon's shell folder is gone, not piled up.
    expect(fs.readdirSync(terminals).filter((name) => left.includes(name))).toEqual([]);
    // The event log survived the crash: numbering continues where it was.
    expect(after.last_event_seq as number).toBeGreaterThan(before.last_event_seq as number);
  });

  it('refuses a database written by a newer version and leaves it untouched', async () => {
    home = makeHome();
    await runCli(['daemon', '--detach'], home.env);
    await runCli(['daemon', 'stop'], home.env);
    const file = path.join(home.dir, 'data.db');
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    const before = fs.readFileSync(file);

    const daemon = spawnDaemon(home.env);
    let stderr = '';
    daemon.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(daemon)).toBe(1);
    expect(stderr).toContain('was written by a newer NextAI Agent (schema 99');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('writes and rotates logs/daemon.log itself, and shows its last lines readably when it cannot start', async () => {
    home = makeHome();
    const log = path.join(home.dir, 'logs', 'daemon.log');
    fs.mkdirSync(path.dirname(log), { recursive: true, mode: 0o700 });
    // A log already at its 10 MiB limit: the daemon keeps it as daemon.log.1 and starts a new one.
    const full = `${'a line from before'.padEnd(1023, '.')}\n`.repeat(10 * 1024);
    fs.writeFileSync(log, full, { mode: 0o600 });

    expect((await runCli(['daemon', '--detach'], home.env)).code).toBe(0);
    const pid = readPid(path.join(home.dir, 'run', 'daemon.pid'));
    expect(fs.readFileSync(`${log}.1`, 'utf8').startsWith(full)).toBe(true);
    const entries = () =>
      fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { level: string; component: string; msg: string; pid?: number });
    await expect
      .poll(() => entries().find((entry) => entry.msg === 'daemon started'))
      .toMatchObject({
        level: 'info',
        component: 'daemon',
        pid,
      });
    expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);
    await expect.poll(() => isAlive(pid as number)).toBe(false);
    // Its last line, written as it exited.
    expect(entries().at(-1)).toMatchObject({ component: 'daemon', msg: 'daemon stopped' });

    const db = new Database(path.join(home.dir, 'data.db'));
    db.pragma('user_version = 99');
    db.close();
    const failed = await runCli(['daemon', '--detach'], home.env);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('The daemon could not start (exit code 1).');
    expect(failed.stderr).toContain(`Last lines of ${log}:`);
    expect(failed.stderr).toMatch(/\d\dZ error \[daemon\] the daemon could not start error=".*schema 99/);
    // Rendered for a person, not the file's JSON.
    expect(failed.stderr).not.toContain('{"level"');
  });

  it('stops on `nextai daemon stop` and removes its socket', async () => {
    home = makeHome();
    await runCli(['daemon', '--detach'], home.env);
    const pid = readPid(path.join(home.dir, 'run', 'daemon.pid'));
    const stop = await runCli(['daemon', 'stop'], home.env);
    expect(stop).toMatchObject({ code: 0, stdout: expect.stringContaining(`daemon stopped (pid ${pid})`) });
    await expect.poll(() => isAlive(pid as number)).toBe(false);
    expect(fs.existsSync(path.join(home.dir, 'run', 'daemon.sock'))).toBe(false);
    expect((await runCli(['daemon', 'stop'], home.env)).stdout).toBe(`no daemon is running for ${home.dir}\n`);
  });

  it('stays stopped after `nextai daemon stop` until it is started on purpose', async () => {
    home = makeHome();
    await runCli(['daemon', '--detach'], home.env);
    await runCli(['daemon', 'stop'], home.env);

    const refused = await runCli(['tool', 'system_info'], home.env);
    expect(refused).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('stopped on purpose (nextai daemon stop'),
    });
    const status = await runCli(['status', '--json'], home.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: false, reason: 'stopped' });

    expect((await runCli(['daemon', '--detach'], home.env)).stdout).toBe(`daemon started for ${home.dir}\n`);
    expect((await runCli(['tool', 'system_info'], home.env)).code).toBe(0);
  });
});

describe('nextai daemon --service, while a browser-started daemon owns the data directory', () => {
  /** The service instance, started as the service manager starts it, once it says it waits. */
  async function waitingService() {
    await runCli(['daemon', '--detach'], home.env);
    const other = readPid(path.join(home.dir, 'run', 'daemon.pid'))!;
    const service = startCli(['daemon', '--service', '--home', home.dir], home.env);
    await expect
      .poll(() => service.output().stderr, { timeout: 20_000 })
      .toContain('the service waits for it to end, then takes over');
    // It stays (a service manager would take an exit for "done"), and that daemon goes on alone.
    expect(service.child.exitCode).toBeNull();
    expect((await statusJson(home.env)).pid).toBe(other);
    return { service, other };
  }

  it('waits, and takes over when that daemon dies: exactly one daemon at any time', async () => {
    home = makeHome();
    const { service, other } = await waitingService();
    process.kill(other, 'SIGKILL');
    await expect.poll(async () => (await statusJson(home.env)).pid, { timeout: 20_000 }).toBe(service.child.pid);
    expect(daemonPidsOf(home.dir)).toEqual([String(service.child.pid)]);
    // Logs are written off the hot path: the line may follow the answer to status by a moment.
    await expect.poll(() => service.output().stderr).toContain('the other daemon ended; the service took over');
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('stays stopped too when that daemon is stopped on purpose', async () => {
    home = makeHome();
    const { service } = await waitingService();
    expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);
    expect(await service.exited).toBe(0);
    await expect
      .poll(() => service.output().stderr)
      .toContain('the other daemon was stopped on purpose; the service stays stopped too');
    expect(daemonPidsOf(home.dir)).toEqual([]);
  });

  it('ends cleanly when the service manager stops it while it waits', async () => {
    home = makeHome();
    const { service, other } = await waitingService();
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect((await statusJson(home.env)).pid).toBe(other);
  });
});

describe('nextai tool', () => {
  it('runs system_info through the daemon (starting it) and prints the result', async () => {
    home = makeHome();
    const result = await runCli(['tool', 'system_info'], home.env);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(output).toMatchObject({ arch: process.arch, cpus: expect.any(Number), memory_total: expect.any(Number) });
    expect(output.system).toMatchObject({ platform: 'linux' });
  });

  it('prints the whole result with --json', async () => {
    home = makeHome();
    const result = await runCli(['tool', 'system_info', '{"categories":["memory"]}', '--json'], home.env);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({ ok: true, output: { memory: expect.any(Object) }, duration_ms: expect.any(Number) });
    expect((parsed.output as Record<string, unknown>).cpu).toBeUndefined();
  });

  it('lists the catalog with availability on this host', async () => {
    home = makeHome();
    // No Chromium to browse headless with, and no browser connected: the browser tools wait.
    const env = { ...home.env, NEXTAI_CHROMIUM: '/nonexistent/chromium' };
    const result = await runCli(['tool', '--list', '--json'], env);
    const tools = JSON.parse(result.stdout) as { name: string; available: boolean; unavailable_reason?: string }[];
    expect(tools).toHaveLength(38);
    expect(tools.filter((tool) => !tool.available).map((tool) => tool.name)).toEqual([
      'browser_navigate',
      'browser_interact',
      'browser_extract',
      'browser_snapshot',
      'browser_tabs',
    ]);
    expect(tools.find((tool) => tool.name === 'browser_tabs')?.unavailable_reason).toContain('No browser');
    const human = await runCli(['tool', '--list'], env);
    expect(human.stdout).toContain('33 of 38 tools available on this host');
  });

  it('explains each kind of bad input with its own exit code', async () => {
    home = makeHome();
    // No Chromium to browse headless with: the browser tools need a connected browser.
    const env = { ...home.env, NEXTAI_CHROMIUM: '/nonexistent/chromium' };
    const unknown = await runCli(['tool', 'no_such_tool'], env);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('There is no tool named "no_such_tool"'),
    });
    const badJson = await runCli(['tool', 'system_info', '{oops'], env);
    expect(badJson).toMatchObject({ code: 2, stderr: expect.stringContaining('not valid JSON') });
    const notObject = await runCli(['tool', 'system_info', '[1]'], env);
    expect(notObject).toMatchObject({ code: 2, stderr: expect.stringContaining('must be a JSON object') });
    const badInput = await runCli(['tool', 'system_info', '{"categories":["gpu"]}'], env);
    expect(badInput).toMatchObject({ code: 1, stderr: expect.stringContaining('[INVALID_INPUT]') });
    const unavailable = await runCli(['tool', 'screenshot'], env);
    expect(unavailable).toMatchObject({ code: 1, stderr: expect.stringContaining('[UNAVAILABLE]') });
    const noBrowser = await runCli(['tool', 'browser_tabs', '{"action":"list"}'], env);
    expect(noBrowser).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No browser with the NextAI extension is connected'),
    });
  });
});
