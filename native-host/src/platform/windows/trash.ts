// The Windows trash: the Recycle Bin through .NET's Microsoft.VisualBasic.FileIO.FileSystem
// (DeleteFile / DeleteDirectory with RecycleOption.SendToRecycleBin), run by the PowerShell host
// of powershell.ts: a constant script, the path as ASCII JSON data (never in the script or on a
// command line), so quotes, `$(...)`, backticks and any Unicode in a name stay data.
//
// NOT RUN ON A REAL WINDOWS MACHINE. The request and reply handling are unit-tested; the script
// has never run. Windows behaviours to know: UIOption.OnlyErrorDialogs is the quietest option this
// API has, so an unexpected error may show a dialog until the time-out ends the call; and Windows
// itself deletes permanently an item too large for the Recycle Bin of its drive.
import { AppError } from '@nextai/shared';

import type { TrashAdapter } from '../desktop.js';
import { resolveOptions, type WindowsAdapterOptions } from './powershell.js';

export const WINDOWS_TRASH_SCRIPT = String.raw`
param($Request)
Add-Type -AssemblyName Microsoft.VisualBasic
$path = [string]$Request.path
$FileSystem = [Microsoft.VisualBasic.FileIO.FileSystem]
if ([System.IO.Directory]::Exists($path)) {
  $FileSystem::DeleteDirectory($path, 'OnlyErrorDialogs', 'SendToRecycleBin')
} elseif ([System.IO.File]::Exists($path)) {
  $FileSystem::DeleteFile($path, 'OnlyErrorDialogs', 'SendToRecycleBin')
} else {
  NextAiFail 'NOT_FOUND' ($path + ' does not exist, so there is nothing to move to the Recycle Bin.')
}
if ([System.IO.File]::Exists($path) -or [System.IO.Directory]::Exists($path)) {
  NextAiFail 'TOOL_FAILED' ($path + ' is still there: Windows did not move it to the Recycle Bin (was it cancelled?).')
}
return @{ trashed = $true }
`;

/** Long enough for a large folder (a move to the Recycle Bin of the same drive is a rename). */
export const WINDOWS_TRASH_TIMEOUT_MS = 60_000;

/** What `trashedTo` says: this API does not tell the item's name inside the Recycle Bin ($R…). */
export const RECYCLE_BIN = 'Recycle Bin';

/** The Windows Recycle Bin adapter (`desktop.trash`). */
export function createWindowsTrash(options: WindowsAdapterOptions = {}): TrashAdapter {
  const { powershell } = resolveOptions(options);
  return {
    moveToTrash: async (absolutePath) => {
      if (!/^(?:[a-zA-Z]:[\\/]|[\\/]{2}[^\\/])/.test(absolutePath)) {
        throw new AppError(
          'INVALID_INPUT',
          `The Recycle Bin takes absolute paths (C:\\… or \\\\server\\share\\…), not ${absolutePath}.`,
        );
      }
      await powershell.run(WINDOWS_TRASH_SCRIPT, { path: absolutePath }, { timeoutMs: WINDOWS_TRASH_TIMEOUT_MS });
      return { trashedTo: RECYCLE_BIN };
    },
  };
}
