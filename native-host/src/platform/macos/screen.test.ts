import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

import { SCREEN_RECORDING_MESSAGE, type JxaHost } from './jxa.js';
import { type Exec } from '../command-exec.js';
import { createMacosScreen, screencaptureCommand, screencaptureFailure } from './screen.js';
import { checkRegion } from '../region.js';

describe('screencapture command', () => {
  it('captures the main display, or a region in points, silently as PNG', () => {
    expect(screencaptureCommand('/tmp/a.png')).toEqual({
      command: 'screencapture',
      args: ['-x', '-t', 'png', '-m', '/tmp/a.png'],
    });
    expect(screencaptureCommand('/tmp/a.png', { x: -1440, y: 10.4, width: 100, height: 50.6 })).toEqual({
      command: 'screencapture',
      args: ['-x', '-t', 'png', '-R-1440,10,100,51', '/tmp/a.png'],
    });
  });

  it('refuses empty and non-numeric regions', () => {
    expect(() => checkRegion({ x: 0, y: 0, width: 0.2, height: 5 })).toThrow(/empty/);
    expect(() => checkRegion({ x: 0, y: Infinity, width: 5, height: 5 })).toThrow(/must be numbers/);
  });

  it('maps a refused capture to the Screen Recording setting', () => {
    const refused = new AppError('TOOL_FAILED', 'x', { details: { stderr: 'could not create image from display' } });
    expect(screencaptureFailure(refused)).toMatchObject({ code: 'UNAVAILABLE', message: SCREEN_RECORDING_MESSAGE });
    const other = new AppError('TOOL_FAILED', 'x', { details: { stderr: 'disk full' } });
    expect(screencaptureFailure(other)).toMatchObject({
      code: 'TOOL_FAILED',
      message: 'screencapture failed: disk full',
    });
  });
});

describe('createMacosScreen', () => {
  const info = (screenRecording: boolean | null): JxaHost => ({
    run: async () => ({ width: 4, height: 2, backingScale: 2, screenRecording }),
  });

  it('scales a Retina capture to points and removes its temporary file', async () => {
    const png = await sharp({ create: { width: 8, height: 4, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .png()
      .toBuffer();
    let file = '';
    const exec: Exec = async (spec) => {
      file = spec.args.at(-1)!;
      await fs.promises.writeFile(file, png);
      return { stdout: '', stderr: '', exitCode: 0 };
    };
    const raw = await createMacosScreen({ exec, jxa: info(true) }).capture();
    expect(raw).toMatchObject({ width: 4, height: 2, channels: 3, order: 'rgb' });
    expect([...raw.data.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it('refuses with the setting to change when Screen Recording is off', async () => {
    const exec: Exec = async () => ({ stdout: '', stderr: '', exitCode: 0 });
    await expect(createMacosScreen({ exec, jxa: info(false) }).capture()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: SCREEN_RECORDING_MESSAGE,
    });
  });

  it('reports the main display size in points', async () => {
    await expect(createMacosScreen({ jxa: info(null) }).screenSize()).resolves.toEqual({ width: 4, height: 2 });
  });
});
