// Windows screen capture: System.Drawing's Graphics.CopyFromScreen (BitBlt from the screen) in
// PowerShell, saved as PNG to a file the daemon made, decoded with sharp.
//
// NOT RUN ON A REAL WINDOWS MACHINE. The request, region validation and error mapping are
// unit-tested, and the PNG decoding runs for real in the tests; the PowerShell script has never run.
//
// Screen pixels are physical pixels (the helper makes PowerShell per-monitor DPI aware). The full
// screen is the primary monitor, whose top-left is always 0,0 — the frame screen-space.ts assumes
// — and other monitors are reached with region captures, whose x/y may be negative. The PNG goes
// through a file rather than stdout: a 4K capture is megabytes, more than PowerShell 5.1's JSON
// serializer accepts. The Desktop Duplication API would be faster and see some DRM-protected
// windows differently, but needs a compiled DirectX helper: out of scope here.
import fs from 'node:fs';

import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { RawImage, Rect, ScreenAdapter } from '../desktop.js';
import { checkRegion } from '../region.js';
import { LOAD_NATIVE, NATIVE_TYPE } from './native.js';
import { NO_DESKTOP_MESSAGE, resolveOptions, type WindowsAdapterOptions } from './powershell.js';
import { withTemporaryFile } from '../temporary-file.js';

export const WINDOWS_SCREEN_SCRIPT = String.raw`
param($Request)
${LOAD_NATIVE}
$W = [${NATIVE_TYPE}]
$primary = $W::PrimarySize()
$virtual = $W::VirtualScreen()
if ([string]$Request.op -eq 'size') {
  return @{ width = $primary[0]; height = $primary[1] }
}
if ($Request.region -ne $null) {
  $x = [int]$Request.region.x; $y = [int]$Request.region.y
  $width = [int]$Request.region.width; $height = [int]$Request.region.height
  $right = $virtual[0] + $virtual[2]; $bottom = $virtual[1] + $virtual[3]
  if ($x -lt $virtual[0] -or $y -lt $virtual[1] -or ($x + $width) -gt $right -or ($y + $height) -gt $bottom) {
    NextAiFail 'INVALID_INPUT' ('The region ' + $width + 'x' + $height + ' at (' + $x + ', ' + $y + ') is not inside the screens, which span (' + $virtual[0] + ', ' + $virtual[1] + ') to (' + $right + ', ' + $bottom + ').')
  }
} else {
  $x = 0; $y = 0; $width = $primary[0]; $height = $primary[1]
}
Add-Type -AssemblyName System.Drawing
$bitmap = New-Object System.Drawing.Bitmap $width, $height, ([System.Drawing.Imaging.PixelFormat]::Format24bppRgb)
$graphics = [System.Drawing.Graphics]::FromImage($bitmap)
try {
  try {
    $graphics.CopyFromScreen($x, $y, 0, 0, $bitmap.Size, [System.Drawing.CopyPixelOperation]::SourceCopy)
  } catch [System.ComponentModel.Win32Exception] {
    # "The handle is invalid": no interactive desktop (locked, secure desktop, session 0).
    NextAiFail 'NO_DESKTOP' $_.Exception.Message
  }
  $bitmap.Save([string]$Request.file, [System.Drawing.Imaging.ImageFormat]::Png)
} finally {
  $graphics.Dispose()
  $bitmap.Dispose()
}
return @{ width = $width; height = $height }
`;

export const screenRequests = {
  size: () => ({ op: 'size' }),
  capture: (file: string, region?: Rect) => ({ op: 'capture', file, region: region ? checkRegion(region) : null }),
};

const sizeSchema = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });

/** PNG from the script → raw RGB. CopyFromScreen already works in physical pixels: no scaling. */
export async function decodePng(png: Buffer, expected: { width: number; height: number }): Promise<RawImage> {
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== expected.width || info.height !== expected.height) {
    throw new AppError(
      'TOOL_FAILED',
      `The screen capture is ${info.width}×${info.height} where ${expected.width}×${expected.height} was asked for.`,
    );
  }
  return { width: info.width, height: info.height, channels: 3, order: 'rgb', data };
}

const CAPTURE_TIMEOUT_MS = 20_000;

export function createWindowsScreen(options: WindowsAdapterOptions = {}): ScreenAdapter {
  const { powershell } = resolveOptions(options);
  return {
    async screenSize() {
      const size = sizeSchema.parse(await powershell.run(WINDOWS_SCREEN_SCRIPT, screenRequests.size()));
      if (size.width < 1 || size.height < 1) throw new AppError('UNAVAILABLE', NO_DESKTOP_MESSAGE);
      return size;
    },
    capture: (region) =>
      withTemporaryFile('nextai-capture-', 'screen.png', async (file) => {
        const request = screenRequests.capture(file, region);
        const size = sizeSchema.parse(
          await powershell.run(WINDOWS_SCREEN_SCRIPT, request, { timeoutMs: CAPTURE_TIMEOUT_MS }),
        );
        return decodePng(await fs.promises.readFile(file), size);
      }),
  };
}
