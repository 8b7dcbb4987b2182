import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runCommand } from '../../native-host/src/core/subprocess.js';

export interface XServer {
  /** e.g. ":93" */
  display: string;
  /** Environment for programs that should use this display (DISPLAY set, the rest inherited). */
  env: NodeJS.ProcessEnv;
  width: number;
  height: number;
  stop(): Promise<void>;
}

/**
 * Starts a real X server (Xvfb) with a real window manager (openbox) for tests: windows get
 * frames, titles, focus and EWMH state as on a desktop. The display number is chosen by Xvfb
 * (`-displayfd`), so parallel test files never collide.
 */
export async function startXServer(options: { width?: number; height?: number } = {}): Promise<XServer> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-xvfb-'));
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-ac'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start in 10 s: ${errors}`)), 10_000);
    xvfb.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${text.trim()}`);
      }
    });
    xvfb.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited with ${code}: ${errors}`));
    });
  });
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, XDG_RUNTIME_DIR: runtime };
  const openbox = await startWindowManager(env).catch(async (error: unknown) => {
    await kill(xvfb);
    throw error;
  });
  return {
    display,
    env,
    width,
    height,
    stop: async () => {
      await Promise.all([kill(openbox), kill(xvfb)]);
      fs.rmSync(runtime, { recursive: true, force: true });
    },
  };
}

/**
 * Starts openbox and waits until it has announced itself. An openbox that exits before that
 * (a CI run once waited out the whole time-out for one that never came) is started
 * again, twice at most, and its own words go into the error.
 */
async function startWindowManager(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  let said = '';
  for (let attempt = 1; ; attempt += 1) {
    const openbox = spawn('openbox', ['--sm-disable'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    openbox.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const running = () => openbox.exitCode === null && openbox.signalCode === null;
    if (await waitForWindowManager(env, running)) return openbox;
    if (attempt === 3) throw new Error(`openbox exited before it started, ${attempt} times: ${said.trim()}`);
  }
}

/**
 * Waits until the window manager has announced itself (EWMH `_NET_SUPPORTING_WM_CHECK`): true;
 * false as soon as it is no longer `running`.
 */
async function waitForWindowManager(env: NodeJS.ProcessEnv, running: () => boolean): Promise<boolean> {
  // Generous: on a loaded two-core machine openbox has been seen to take over 10 s.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!running()) return false;
    try {
      const { stdout } = await runCommand('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], {
        env: { DISPLAY: env.DISPLAY ?? '' },
      });
      if (stdout.includes('window id')) return true;
    } catch {
      // Not there yet: the property appears once openbox has started.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('openbox did not start within 30 s');
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 2000).unref();
  });
}

/** Starts an xterm with a unique title and waits until its window is mapped; returns its X id. */
export async function openXterm(
  server: XServer,
  title: string,
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; windowId: string }> {
  const child = spawn('xterm', ['-T', title, '-geometry', '80x24+100+100', ...extraArgs], {
    env: server.env,
    stdio: 'ignore',
  });
  const windowId = await waitForWindow(server, title);
  return { child, windowId };
}

/** Waits until a window whose title contains `title` is visible; returns its id (decimal, as xdotool prints). */
export async function waitForWindow(server: XServer, title: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { stdout } = await runCommand('xdotool', ['search', '--onlyvisible', '--name', title], {
        env: { DISPLAY: server.display },
      });
      const id = stdout.trim().split('\n')[0];
      if (id) return id;
    } catch {
      // xdotool exits 1 while nothing matches.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no window titled "${title}" appeared within ${timeoutMs} ms`);
}
