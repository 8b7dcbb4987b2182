import { spawn, type ChildProcess } from 'node:child_process';

import { AppError } from '@nextai/shared';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createSystemHandlers } from '../../native-host/src/tools/system/index.js';
import { callTool, MemoryBlobStore, testServices } from '../../native-host/src/tools/test-support.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * Clipboard and notifications for real: the X CLIPBOARD selection (checked with xclip, the way
 * another app would paste), and notify-send talking to a real notification daemon (dunst) on a
 * private D-Bus session bus (checked with dunstctl's history).
 */
let server: XServer;
let bus: ChildProcess;
let dunst: ChildProcess;
let env: NodeJS.ProcessEnv;
let handlers: ReturnType<typeof createSystemHandlers>['handlers'];

beforeAll(async () => {
  server = await startXServer();
  bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    bus.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
  });
  env = { ...server.env, DBUS_SESSION_BUS_ADDRESS: address };
  dunst = spawn('dunst', [], { env, stdio: 'ignore' });
  await waitForDunst();
  handlers = createSystemHandlers(testServices(createLinuxDesktop(env), new MemoryBlobStore(64))).handlers;
}, 40_000);
afterAll(async () => {
  dunst?.kill();
  bus?.kill();
  await server?.stop();
});

async function waitForDunst(): Promise<void> {
  await vi.waitFor(
    () =>
      runCommand('dunstctl', ['is-paused'], { env: { DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS ?? '' } }),
    { timeout: 10_000, interval: 50 },
  );
}

const xclip = (args: string[], input?: string) =>
  runCommand('xclip', args, {
    env: { DISPLAY: server.display },
    timeoutMs: 5000,
    ...(input === undefined ? {} : { input }),
  });

/**
 * Copies text the way another app would. xclip forks a child that keeps serving the selection
 * (and holds the pipes open), so this waits for the exit of the process it started only.
 */
async function copyWithXclip(text: string): Promise<void> {
  const child = spawn('xclip', ['-selection', 'clipboard', '-i'], {
    env: { ...process.env, DISPLAY: server.display },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin?.end(text);
  expect(await exited).toBe(0);
}

describe('clipboard', () => {
  it('writes Unicode text another app can paste, and reads text another app copied', async () => {
    const text = 'Grüße, 你好 — $(echo not run) `tick` "quoted"\nsecond line 🎉';
    await callTool('clipboard_write', handlers.clipboard_write, { content: text });
    expect((await xclip(['-selection', 'clipboard', '-o'])).stdout).toBe(text);

    await copyWithXclip('copied by another app ✓');
    const read = (await callTool('clipboard_read', handlers.clipboard_read, {})) as { content: string; format: string };
    expect(read).toMatchObject({ content: 'copied by another app ✓', format: 'text' });
  });

  it('round-trips a PNG image, returned by reference when large', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 10, b: 30 } } })
      .png()
      .toBuffer();
    const written = (await callTool('clipboard_write', handlers.clipboard_write, {
      content: png.toString('base64'),
      format: 'image',
    })) as { message: string };
    expect(written.message).toContain('40×30');
    const targets = (await xclip(['-selection', 'clipboard', '-t', 'TARGETS', '-o'])).stdout;
    expect(targets).toContain('image/png');

    const read = (await callTool('clipboard_read', handlers.clipboard_read, { format: 'image' })) as {
      content: string;
      format: string;
    };
    expect(read.format).toBe('image');
    // The test blob store inlines at most 64 base64 characters: this image comes back by reference.
    expect(read.content).toMatch(/^blob:/u);
  });

  it('says what the clipboard holds when asked for what it does not', async () => {
    await callTool('clipboard_write', handlers.clipboard_write, { content: 'only text' });
    const error = await callTool('clipboard_read', handlers.clipboard_read, { format: 'image' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('NOT_FOUND');
    expect((error as AppError).message).toContain('UTF8_STRING');
    const notPng = await callTool('clipboard_write', handlers.clipboard_write, {
      content: Buffer.from('GIF89a not a png').toString('base64'),
      format: 'image',
    }).catch((caught: unknown) => caught);
    expect((notPng as AppError).code).toBe('INVALID_INPUT');
  });
});

describe('notification_send', () => {
  it('shows a notification through the desktop notification daemon, with its urgency', async () => {
    const title = `nx-note-${process.pid}`;
    for (const urgency of ['critical', 'low'] as const) {
      const result = (await callTool('notification_send', handlers.notification_send, {
        title: `${title}-${urgency}`,
        body: 'The build finished: 3 tests, 0 failures',
        urgency,
      })) as { success: boolean };
      expect(result.success).toBe(true);
    }
    // dunst keeps shown notifications in its history once closed; close all, then read it.
    const busEnv = { DBUS_SESSION_BUS_ADDRESS: env.DBUS_SESSION_BUS_ADDRESS ?? '' };
    type Entry = Record<string, { data: unknown }>;
    const deadline = Date.now() + 5000;
    let shown: Entry[] = [];
    while (shown.length < 2 && Date.now() < deadline) {
      await runCommand('dunstctl', ['close-all'], { env: busEnv });
      const history = JSON.parse((await runCommand('dunstctl', ['history'], { env: busEnv })).stdout) as {
        data: Entry[][];
      };
      shown = (history.data[0] ?? []).filter((entry) => String(entry.summary?.data).startsWith(title));
    }
    const bySummary = new Map(shown.map((entry) => [String(entry.summary?.data), entry]));
    expect(bySummary.get(`${title}-critical`)?.body?.data).toBe('The build finished: 3 tests, 0 failures');
    // dunst's history has no urgency field, but its default timeouts differ by urgency: a critical
    // notification stays until dismissed (0), a low one times out.
    expect(bySummary.get(`${title}-critical`)?.timeout?.data).toBe(0);
    expect(Number(bySummary.get(`${title}-low`)?.timeout?.data)).toBeGreaterThan(0);
  });

  it('explains what is missing when no notification daemon answers', async () => {
    const lonely = createSystemHandlers(
      testServices(createLinuxDesktop({ ...server.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/nx-bus' })),
    ).handlers;
    const error = await callTool('notification_send', lonely.notification_send, { title: 't', body: 'b' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('UNAVAILABLE');
  });
});
