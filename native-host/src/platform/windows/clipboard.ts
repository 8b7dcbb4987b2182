// The Windows clipboard through System.Windows.Forms.Clipboard in PowerShell: the list of formats,
// Unicode text, and images (the "PNG" format apps like browsers and Office put there, else the
// bitmap). Set-Clipboard/Get-Clipboard are not used: PowerShell 7's handle text only, and
// Set-Clipboard refuses an empty string.
//
// NOT RUN ON A REAL WINDOWS MACHINE. Requests, reply parsing and the PNG check are unit-tested;
// the PowerShell script has never run.
//
// Text travels inside the request (ASCII JSON); images travel through a file the daemon made,
// both ways, since a PNG can be megabytes. The Forms clipboard needs a single-threaded apartment,
// which powershell.exe uses by default. Another program may hold the clipboard open for a moment:
// SetDataObject retries (10 × 50 ms), reads retry the same.
import fs from 'node:fs';

import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { ClipboardAdapter, ClipboardContent } from '../desktop.js';
import { resolveOptions, type WindowsAdapterOptions } from './powershell.js';
import { withTemporaryFile } from '../temporary-file.js';

export const WINDOWS_CLIPBOARD_SCRIPT = String.raw`
param($Request)
Add-Type -AssemblyName System.Windows.Forms
Add-Type -AssemblyName System.Drawing
if ([System.Threading.Thread]::CurrentThread.GetApartmentState() -ne [System.Threading.ApartmentState]::STA) {
  NextAiFail 'UNAVAILABLE' 'The clipboard needs PowerShell in a single-threaded apartment (powershell.exe -STA).'
}
$C = [System.Windows.Forms.Clipboard]
switch ([string]$Request.op) {
  'read' {
    $data = $null
    for ($attempt = 0; $attempt -lt 10; $attempt++) {
      try { $data = $C::GetDataObject(); break }
      catch [System.Runtime.InteropServices.ExternalException] { Start-Sleep -Milliseconds 50 }
    }
    if ($data -eq $null) { return @{ formats = @(); text = $null; image = $false } }
    $result = @{ formats = @($data.GetFormats($false)); text = $null; image = $false }
    if ($data.GetDataPresent([System.Windows.Forms.DataFormats]::UnicodeText)) {
      $result.text = [string]$data.GetData([System.Windows.Forms.DataFormats]::UnicodeText)
    }
    if ($data.GetDataPresent('PNG')) {
      $stream = $data.GetData('PNG')
      if ($stream -is [System.IO.Stream]) {
        $file = [System.IO.File]::Create([string]$Request.file)
        try { $stream.CopyTo($file) } finally { $file.Dispose() }
        $result.image = $true
      }
    }
    if (-not $result.image -and $C::ContainsImage()) {
      $image = $C::GetImage()
      if ($image -ne $null) {
        try { $image.Save([string]$Request.file, [System.Drawing.Imaging.ImageFormat]::Png) } finally { $image.Dispose() }
        $result.image = $true
      }
    }
    return $result
  }
  'text' {
    $text = [string]$Request.text
    if ($text.Length -eq 0) {
      $C::Clear()
    } else {
      $object = New-Object System.Windows.Forms.DataObject
      $object.SetText($text, [System.Windows.Forms.TextDataFormat]::UnicodeText)
      $C::SetDataObject($object, $true, 10, 50)
    }
    return @{ done = $true }
  }
  'image' {
    $bytes = [System.IO.File]::ReadAllBytes([string]$Request.file)
    $image = [System.Drawing.Image]::FromStream((New-Object System.IO.MemoryStream (,$bytes)))
    try {
      # Both: the bitmap for every app, PNG (with transparency) for those that read it.
      $object = New-Object System.Windows.Forms.DataObject
      $object.SetImage($image)
      $object.SetData('PNG', $false, (New-Object System.IO.MemoryStream (,$bytes)))
      $C::SetDataObject($object, $true, 10, 50)
    } finally {
      $image.Dispose()
    }
    return @{ done = $true }
  }
}
NextAiFail 'INVALID_INPUT' ('Unknown clipboard operation: ' + $Request.op)
`;

export const clipboardRequests = {
  read: (file: string) => ({ op: 'read', file }),
  text: (text: string) => ({ op: 'text', text }),
  image: (file: string) => ({ op: 'image', file }),
};

const readSchema = z.object({
  formats: z
    .array(z.string())
    .nullable()
    .transform((formats) => formats ?? []),
  text: z.string().nullable(),
  image: z.boolean(),
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function isPng(bytes: Buffer): boolean {
  return bytes.length > PNG_SIGNATURE.length && bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}

/** The script's reply (and the image file it wrote, if any) → ClipboardContent. */
export function toClipboardContent(value: unknown, png: Buffer | null): ClipboardContent {
  const reply = readSchema.parse(value);
  const content: ClipboardContent = { formats: reply.formats };
  if (reply.text !== null) content.text = reply.text;
  if (reply.image) {
    if (!png || !isPng(png)) {
      throw new AppError('TOOL_FAILED', 'The clipboard image could not be read as PNG.');
    }
    content.png = png;
  }
  return content;
}

export function createWindowsClipboard(options: WindowsAdapterOptions = {}): ClipboardAdapter {
  const { powershell } = resolveOptions(options);
  return {
    read: () =>
      withTemporaryFile('nextai-clipboard-', 'clipboard.png', async (file) => {
        const value = await powershell.run(WINDOWS_CLIPBOARD_SCRIPT, clipboardRequests.read(file));
        const png = await fs.promises.readFile(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return null;
          throw error;
        });
        return toClipboardContent(value, png);
      }),
    async writeText(text) {
      await powershell.run(WINDOWS_CLIPBOARD_SCRIPT, clipboardRequests.text(text));
    },
    writeImage: (png) =>
      withTemporaryFile('nextai-clipboard-', 'clipboard.png', async (file) => {
        if (!isPng(png)) throw new AppError('INVALID_INPUT', 'The image for the clipboard must be PNG bytes.');
        await fs.promises.writeFile(file, png);
        await powershell.run(WINDOWS_CLIPBOARD_SCRIPT, clipboardRequests.image(file));
      }),
  };
}
