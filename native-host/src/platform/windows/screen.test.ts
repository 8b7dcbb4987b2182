import fs from 'node:fs';
import path from 'node:path';

import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

import { NO_DESKTOP_MESSAGE } from './powershell.js';
import { WINDOWS_SCREEN_SCRIPT, createWindowsScreen, screenRequests } from './screen.js';
import { fakePowerShell } from './test-support.js';

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 10, b: 30 } } })
    .png()
    .toBuffer();
}

describe('Windows screen', () => {
  it('validates regions before anything runs', () => {
    expect(screenRequests.capture('f.png', { x: -1920.4, y: 0, width: 100.6, height: 50 })).toEqual({
      op: 'capture',
      file: 'f.png',
      region: { x: -1920, y: 0, width: 101, height: 50 },
    });
    expect(() => screenRequests.capture('f', { x: 0, y: 0, width: 0, height: 10 })).toThrow(/empty/);
    expect(() => screenRequests.capture('f', { x: Number.NaN, y: 0, width: 5, height: 10 })).toThrow(/must be numbers/);
  });

  it('asks the primary monitor size', async () => {
    const host = fakePowerShell(() => ({ width: 2560, height: 1440 }));
    await expect(createWindowsScreen({ powershell: host }).screenSize()).resolves.toEqual({
      width: 2560,
      height: 1440,
    });
    expect(host.calls[0]!.request).toEqual({ op: 'size' });
  });

  it('captures into a file the daemon made, decodes it, and removes it', async () => {
    const image = await png(4, 3);
    let file = '';
    const host = fakePowerShell(async (request) => {
      file = request.file as string;
      await fs.promises.writeFile(file, image);
      return { width: 4, height: 3 };
    });
    const raw = await createWindowsScreen({ powershell: host }).capture({ x: 10, y: 20, width: 4, height: 3 });
    expect(raw).toMatchObject({ width: 4, height: 3, channels: 3, order: 'rgb' });
    expect([...raw.data.subarray(0, 3)]).toEqual([200, 10, 30]);
    expect(host.calls[0]!.request.region).toEqual({ x: 10, y: 20, width: 4, height: 3 });
    expect(path.basename(file)).toBe('screen.png');
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it('refuses a capture whose size is not the one asked for', async () => {
    const image = await png(2, 2);
    const host = fakePowerShell(async (request) => {
      await fs.promises.writeFile(request.file as string, image);
      return { width: 4, height: 3 };
    });
    await expect(createWindowsScreen({ powershell: host }).capture()).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });

  it('says so when there is no desktop to capture (locked, secure desktop, service)', async () => {
    const host = fakePowerShell(() => ({ ok: false, code: 'NO_DESKTOP', message: 'The handle is invalid' }));
    await expect(createWindowsScreen({ powershell: host }).capture()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: NO_DESKTOP_MESSAGE,
    });
  });

  it('has a script that checks the region against the virtual screen and saves PNG', () => {
    expect(WINDOWS_SCREEN_SCRIPT).toContain('$graphics.CopyFromScreen($x, $y, 0, 0, $bitmap.Size');
    expect(WINDOWS_SCREEN_SCRIPT).toContain('[System.Drawing.Imaging.ImageFormat]::Png');
    expect(WINDOWS_SCREEN_SCRIPT).toContain("NextAiFail 'INVALID_INPUT'");
    expect(WINDOWS_SCREEN_SCRIPT).toContain("NextAiFail 'NO_DESKTOP'");
  });
});
