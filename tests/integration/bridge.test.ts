import fs from 'node:fs';
import path from 'node:path';

import { CHROME_EXTENSION_ID, FIREFOX_EXTENSION_ID, PROTOCOL_VERSION } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { isAlive, makeHome, readPid, type TestHome } from '../support/home.js';
import { NativeHostProcess, lengthPrefix } from '../support/native-host-process.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

const ORIGIN = `chrome-extension://${CHROME_EXTENSION_ID}/`;
const MiB = 1024 * 1024;

let home: TestHome;
let hosts: NativeHostProcess[] = [];

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  for (const host of hosts) host.kill();
  hosts = [];
  await home.cleanup();
});

function startHost(args: string[] = [ORIGIN]): NativeHostProcess {
  const host = new NativeHostProcess(args, home.env);
  hosts.push(host);
  return host;
}

const hello = (host: NativeHostProcess, id = 1) =>
  host.call(id, 'daemon.hello', {
    client: { kind: 'test', name: 'bridge-test', version: '0.1.0' },
    protocol_version: PROTOCOL_VERSION,
  });

describe('nextai host (the native-messaging bridge)', () => {
  it('starts the daemon, says hello and answers system_info over real pipes', async () => {
    home = makeHome();
    const host = startHost();
    const greeting = await hello(host);
    expect(greeting.result).toMatchObject({ daemon: { version: '0.1.0', platform: 'linux', data_dir: home.dir } });

    const status = await host.call(2, 'daemon.status');
    expect(status.result).toMatchObject({
      running: true,
      clients: [expect.objectContaining({ kind: 'test', origin: ORIGIN, is_caller: true })],
    });

    const info = await host.call(3, 'tools.call', { name: 'system_info', input: {} });
    expect(info.result).toMatchObject({ ok: true, output: { arch: process.arch, system: { platform: 'linux' } } });
  });

  it('writes nothing before the first answer, as sendNativeMessage requires', async () => {
    home = makeHome();
    const host = startHost();
    host.send({ jsonrpc: '2.0', id: 'one-shot', method: 'daemon.ping', params: {} });
    host.closeInput();
    expect(await host.exited).toBe(0);
    expect(host.frames).toHaveLength(1);
    expect(host.frames[0]?.value).toMatchObject({ id: 'one-shot', result: { time: expect.any(Number) } });
  });

  it('answers bad requests with standard and project error codes', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    expect((await host.call(10, 'no.such.method')).error).toMatchObject({ code: -32601 });
    expect((await host.call(11, 'tools.call', { input: {} })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('name'),
    });
    expect((await host.call(12, 'tools.call', { name: 'teleport', input: {} })).error).toMatchObject({
      code: -32001,
      data: { code: 'UNKNOWN_TOOL' },
      message: expect.stringContaining('Available tools: screenshot'),
    });
    expect(
      (await host.call(13, 'tools.call', { name: 'web_fetch', input: { url: 'https://accounts.google.com/' } })).result,
    ).toMatchObject({
      ok: false,
      error: { code: 'POLICY_BLOCKED', message: expect.stringContaining('accounts.google.com') },
    });
    // ask_user belongs to agent runs: called on its own, it says so (as a result the caller can read).
    expect((await host.call(14, 'tools.call', { name: 'ask_user', input: { question: 'Why?' } })).result).toMatchObject(
      {
        ok: false,
        error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('inside an agent run') },
      },
    );
  });

  it('survives frames that are not JSON or not JSON-RPC, and keeps serving', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    const garbage = Buffer.from('this is not json', 'utf8');
    host.writeRaw(Buffer.concat([lengthPrefix(garbage.length), garbage]));
    await host.waitFor((frame) => frame.id === null && (frame.error as { code: number }).code === -32700);
    host.send({ jsonrpc: '1.0', id: 77, method: 'daemon.ping' });
    await host.waitFor((frame) => frame.id === 77 && (frame.error as { code: number }).code === -32600);
    host.send([1, 2, 3]);
    await host.waitFor((frame) => frame.id === null && (frame.error as { code: number }).code === -32600);
    expect((await host.call(14, 'daemon.ping', { payload: 'still here' })).result).toMatchObject({
      payload: 'still here',
    });
  });

  it('refuses an oversized frame with an error and closes, without waiting for its payload', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    host.writeRaw(lengthPrefix(100 * MiB));
    const error = await host.waitFor(
      (frame) => (frame.error as { data?: { code?: string } } | undefined)?.data?.code === 'FRAME_TOO_LARGE',
    );
    expect(error).toMatchObject({ id: null });
    expect(await host.exited).toBe(0);
  });

  it('closes cleanly when the input ends inside a frame', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    host.writeRaw(Buffer.concat([lengthPrefix(50), Buffer.from('{"jsonrpc":"2.0"')]));
    host.closeInput();
    expect(await host.exited).toBe(0);
  });

  it('refuses a caller that is not the NextAI extension, before starting anything', async () => {
    home = makeHome();
    const host = startHost(['chrome-extension://abcdefghijklmnopabcdefghijklmnop/']);
    expect(await host.exited).toBe(1);
    expect(host.frames[0]?.value).toMatchObject({ id: null, error: { data: { code: 'ORIGIN_NOT_ALLOWED' } } });
    expect(fs.existsSync(path.join(home.dir, 'run', 'daemon.sock'))).toBe(false);

    const noCaller = startHost([]);
    expect(await noCaller.exited).toBe(1);
    expect(JSON.stringify(noCaller.frames[0]?.value)).toContain('started by the browser');
  });

  it('accepts Firefox, which passes the manifest path and the add-on id', async () => {
    home = makeHome();
    const host = startHost([
      '/home/someone/.mozilla/native-messaging-hosts/com.nextai.agent.json',
      FIREFOX_EXTENSION_ID,
    ]);
    await hello(host);
    const status = await host.call(2, 'daemon.status');
    expect(status.result).toMatchObject({ clients: [expect.objectContaining({ origin: FIREFOX_EXTENSION_ID })] });
  });

  it('never writes a frame over 1 MiB: a 3 MiB answer arrives as chunks that reassemble exactly', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    const payload = '大'.repeat(MiB); // 3 MiB of UTF-8
    host.send({ jsonrpc: '2.0', id: 20, method: 'daemon.ping', params: { payload } });
    await host.waitFor((frame) => {
      const params = frame.params as { index?: number; count?: number } | undefined;
      return frame.method === 'bridge.chunk' && params?.index === (params?.count ?? 0) - 1;
    });
    const chunks = host.frames.filter((frame) => (frame.value as { method?: string }).method === 'bridge.chunk');
    expect(chunks.length).toBeGreaterThan(2);
    expect(Math.max(...host.frames.map((frame) => frame.bytes))).toBeLessThanOrEqual(MiB);
    const whole = chunks.map((frame) => (frame.value as { params: { data: string } }).params.data).join('');
    expect(JSON.parse(whole)).toMatchObject({ id: 20, result: { payload } });
  });

  it('replays the events a client missed, from the last seq it saw', async () => {
    home = makeHome();
    const first = startHost();
    await hello(first);
    const subscribed = await first.call(2, 'events.subscribe', { after_seq: 0 });
    const { last_seq: lastSeen, log_id: logId } = subscribed.result as { last_seq: number; log_id: string };
    expect(lastSeen).toBeGreaterThan(0);
    first.closeInput();
    await first.exited;

    // While no browser listens, the CLI uses a tool.
    expect((await runCli(['tool', 'system_info', '{"categories":["os"]}'], home.env)).code).toBe(0);

    const second = startHost();
    await hello(second);
    const resumed = await second.call(2, 'events.subscribe', { after_seq: lastSeen, log_id: logId });
    expect(resumed.result).toMatchObject({ gap: false, log_id: logId });
    const replayed = second.frames
      .map(
        (frame) => frame.value as { method?: string; params?: { seq: number; type: string; data: { tool?: string } } },
      )
      .filter((frame) => frame.method === 'event')
      .map((frame) => frame.params!);
    expect(replayed.every((event) => event.seq > lastSeen)).toBe(true);
    expect(replayed.map((event) => event.type)).toEqual(expect.arrayContaining(['tool.started', 'tool.finished']));
    expect(replayed.find((event) => event.type === 'tool.finished')?.data.tool).toBe('system_info');

    const otherLog = await second.call(3, 'events.subscribe', { after_seq: lastSeen, log_id: 'another-log' });
    expect(otherLog.result).toMatchObject({ gap: true });
  });

  it('restarts a daemon that died while the browser was connected, and says so', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    const pidFile = path.join(home.dir, 'run', 'daemon.pid');
    const firstPid = readPid(pidFile)!;
    process.kill(firstPid, 'SIGKILL');

    await host.waitFor(
      (frame) => frame.method === 'bridge.state' && (frame.params as { daemon: string }).daemon === 'reconnecting',
    );
    await host.waitFor(
      (frame) => frame.method === 'bridge.state' && (frame.params as { daemon: string }).daemon === 'connected',
    );
    await expect.poll(() => isAlive(firstPid)).toBe(false);
    const again = await hello(host, 30);
    expect((again.result as { daemon: { pid: number } }).daemon.pid).not.toBe(firstPid);
    expect(
      (await host.call(31, 'tools.call', { name: 'system_info', input: { categories: ['os'] } })).result,
    ).toMatchObject({ ok: true });
  });

  it('lets a person stop the daemon while a browser is connected: it stays stopped and the browser is told why', async () => {
    home = makeHome();
    const host = startHost();
    await hello(host);
    expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);

    const state = await host.waitFor(
      (frame) => frame.method === 'bridge.state' && (frame.params as { daemon: string }).daemon === 'unavailable',
    );
    expect((state.params as { message: string }).message).toContain('stopped on purpose');
    expect(await host.exited).toBe(1);
    expect(JSON.parse((await runCli(['status', '--json'], home.env)).stdout)).toMatchObject({
      running: false,
      reason: 'stopped',
    });
  });
});
