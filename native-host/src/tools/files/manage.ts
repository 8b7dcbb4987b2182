import fs from 'node:fs';

import { AppError, type ToolInput, type ToolOutput } from '@nextai/shared';

import { removeTree } from '../../platform/linux/pinned-tree.js';
import { pathApiFor } from '../../policy/guards/paths.js';
import type { HostServices } from '../types.js';
import { fsError, locate, locateEntry, notFound, refuseVital } from './locate.js';
import { lstatOrUndefined, pathChanged, pinFolder, pinning, type PinnedFolder } from './pinned.js';

/**
 * `create_directory`. A folder that already exists is success (the state asked for is there),
 * said in the message; a file in the way, or a missing parent without `parents`, is an error.
 * The path is judged again as the call runs (locate), and each folder is created inside the
 * folder above it, held open (pinned.ts), so a link slipped in on the way is refused, not followed.
 */
export async function createDirectory(
  services: HostServices,
  input: ToolInput<'create_directory'>,
): Promise<ToolOutput<'create_directory'>> {
  const api = pathApiFor(services.platform);
  const { real } = locate(services, input.path, 'write', 'created');
  const parentPath = api.dirname(real);
  const name = api.basename(real);
  if (parentPath === real) {
    return { success: true, path: real, message: `${real} already exists; nothing was created.` };
  }
  let pinned: { folder: PinnedFolder; firstCreated?: string };
  try {
    pinned = pinFolder(parentPath, 'created', input.parents);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND' && !input.parents) {
      throw new AppError(
        'NOT_FOUND',
        `The folder ${parentPath} does not exist, so ${real} cannot be created in it. Use parents: true to create the missing folders too.`,
        { details: { path: real } },
      );
    }
    throw error;
  }
  const { folder, firstCreated } = pinned;
  try {
    const existing = lstatOrUndefined(folder.entry(name));
    if (existing?.isDirectory()) {
      return { success: true, path: real, message: `${real} already exists; nothing was created.` };
    }
    if (existing?.isSymbolicLink()) {
      // The guard followed the last link already: a link here now was put here since.
      throw pathChanged(`${real} is now a symbolic link`, 'created');
    }
    if (existing) {
      throw new AppError('INVALID_INPUT', `${real} already exists and is a file, not a folder. Choose another name.`, {
        details: { path: real },
      });
    }
    folder.verify();
    try {
      await fs.promises.mkdir(folder.entry(name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        throw new AppError('INVALID_INPUT', `Something was created at ${real} at the same moment; look at it again.`, {
          cause: error,
          details: { path: real },
        });
      }
      throw fsError(error, real, 'create the folder');
    }
    folder.sync();
  } finally {
    folder.close();
  }
  const first = firstCreated ?? real;
  const missing = input.parents && first !== real ? ` (and the missing folders from ${first} down)` : '';
  return { success: true, path: real, message: `Created ${real}${missing}.` };
}

/**
 * `delete_file`: to the desktop trash, where the person can restore it; for good only with
 * `permanent`. The name itself is deleted — a symlink goes, not what it points to. The root, the
 * home directory, NextAI's data directory and the folders holding them are refused whatever the
 * policy says. The path is judged again as the call runs (locate), and what is deleted is the
 * name in the folder that was judged, held open (pinned.ts).
 */
export async function deleteFile(
  services: HostServices,
  input: ToolInput<'delete_file'>,
): Promise<ToolOutput<'delete_file'>> {
  const api = pathApiFor(services.platform);
  const target = locateEntry(services, input.path, 'deleted');
  refuseVital(services, target);
  const parentPath = api.dirname(target);
  const name = api.basename(target);
  let folder: PinnedFolder;
  try {
    folder = pinFolder(parentPath, 'deleted').folder;
  } catch (error) {
    if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT')) {
      throw notFound(target, input.path);
    }
    throw error;
  }
  try {
    const stats = lstatOrUndefined(folder.entry(name));
    if (!stats) throw notFound(target, input.path);
    const kind = stats.isDirectory() ? 'folder' : stats.isSymbolicLink() ? 'symbolic link' : 'file';
    folder.verify();
    if (input.permanent) {
      try {
        // A folder is removed level by level through open folders (Linux): `fs.rm` walks by
        // path, so a folder inside swapped for a link midway would send it into another place.
        if (stats.isDirectory() && pinning.viaProc) await removeTree(folder.entry(name));
        else await fs.promises.rm(folder.entry(name), { recursive: stats.isDirectory(), force: false });
      } catch (error) {
        throw fsError(error, target, 'delete');
      }
      folder.sync();
      return {
        success: true,
        original_path: target,
        deleted_to: 'deleted',
        message: `Deleted the ${kind} ${target} permanently; it cannot be restored.`,
      };
    }
    const { trashedTo } = await services.desktop.trash.moveToTrash(target, { via: folder.entry(name) });
    return {
      success: true,
      original_path: target,
      deleted_to: trashedTo,
      message: `Moved the ${kind} ${target} to the trash (${trashedTo}); it can be restored from there.`,
    };
  } finally {
    folder.close();
  }
}
