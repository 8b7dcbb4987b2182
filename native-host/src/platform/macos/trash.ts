// The macOS trash: NSFileManager's trashItemAtURL, called through JXA's Objective-C bridge.
//
// Chosen over Finder scripting (`Application('Finder').delete(...)`) because it needs no
// Automation permission for Finder, plays no sound and works without a logged-in Finder; and
// over the `trash` command because that only ships with recent macOS versions. The item lands in
// the Trash of its volume (~/.Trash, or /Volumes/X/.Trashes/<uid>), and the call says where.
// Caveat: Finder may not offer "Put Back" for items trashed this way (it keeps its own record for
// that); the item can still be dragged back from the Trash.
//
// Not run on a real Mac; the command construction and reply handling are unit-tested. The path
// travels as JSON on stdin (see jxa.ts), never inside the script text.
import { AppError } from '@nextai/shared';

import type { TrashAdapter } from '../desktop.js';
import { resolveOptions, type MacosAdapterOptions } from './jxa.js';

export const TRASH_SCRIPT = String.raw`
function main(request) {
  var manager = $.NSFileManager.defaultManager;
  var url = $.NSURL.fileURLWithPath(request.path);
  var resulting = Ref();
  var error = Ref();
  if (!manager.trashItemAtURLResultingItemURLError(url, resulting, error)) {
    var failure = error[0];
    var code = failure ? Number(failure.code) : -1;
    var message = failure ? ObjC.unwrap(failure.localizedDescription) : 'unknown error';
    // NSFileNoSuchFileError 4, NSFileReadNoPermissionError 257, NSFileWriteNoPermissionError 513.
    if (code === 4) nextaiFail('NOT_FOUND', request.path + ' does not exist: ' + message);
    if (code === 257 || code === 513) nextaiFail('PERMISSION_DENIED', 'macOS refused to move ' + request.path + ' to the Trash: ' + message);
    nextaiFail('TOOL_FAILED', 'Could not move ' + request.path + ' to the Trash: ' + message + ' (error ' + code + ')');
  }
  var item = resulting[0];
  return item ? ObjC.unwrap(item.path) : null;
}
`;

/** The macOS Trash adapter (`desktop.trash`). */
export function createMacosTrash(options: MacosAdapterOptions = {}): TrashAdapter {
  const { jxa } = resolveOptions(options);
  return {
    moveToTrash: async (absolutePath) => {
      if (!absolutePath.startsWith('/')) {
        throw new AppError('INVALID_INPUT', `The trash takes absolute paths, not ${absolutePath}.`);
      }
      const value = await jxa.run(TRASH_SCRIPT, { path: absolutePath });
      return { trashedTo: typeof value === 'string' && value.length > 0 ? value : '~/.Trash' };
    },
  };
}
