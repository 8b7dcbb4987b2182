import fs from 'node:fs';

import { AppError, type ToolInput, type ToolOutput } from '@nextai/shared';

import { pathApiFor } from '../../policy/guards/paths.js';
import type { HostServices } from '../types.js';
import { fsError, locate, locateEntry, notFound, refuseVital, statOrUndefined } from './locate.js';

/**
 * `create_directory`. A folder that already exists is success (the state asked for is there),
 * said in the message; a file in the way, or a missing parent without `parents`, is an error.
 */
export async function createDirectory(
  services: HostServices,
  input: ToolInput<'create_directory'>,
): Promise<ToolOutput<'create_directory'>> {
  const api = pathApiFor(services.platform);
  const { real } = locate(services, input.path);
  const stats = await statOrUndefined(real);
  if (stats?.isDirectory()) {
    return { success: true, path: real, message: `${real} already exists; nothing was created.` };
  }
  if (stats) {
    throw new AppError('INVALID_INPUT', `${real} already exists and is a file, not a folder. Choose another name.`, {
      details: { path: real },
    });
  }
  try {
    if (input.parents) {
      const first = await fs.promises.mkdir(real, { recursive: true });
      const missing = first !== undefined && first !== real ? ` (and the missing folders from ${first} down)` : '';
      return { success: true, path: real, message: `Created ${real}${missing}.` };
    }
    await fs.promises.mkdir(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !input.parents) {
      throw new AppError(
        'NOT_FOUND',
        `The folder ${api.dirname(real)} does not exist, so ${real} cannot be created in it. Use parents: true to create the missing folders too.`,
        { details: { path: real } },
      );
    }
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      throw new AppError(
        'INVALID_INPUT',
        `A file is in the way of ${real}: something on the path is a file, not a folder.`,
        {
          cause: error,
          details: { path: real },
        },
      );
    }
    throw fsError(error, real, 'create the folder');
  }
  return { success: true, path: real, message: `Created ${real}.` };
}

/**
 * `delete_file`: to the desktop trash, where the person can restore it; for good only with
 * `permanent`. The name itself is deleted — a symlink goes, not what it points to. The root, the
 * home directory, NextAI's data directory and the folders holding them are refused whatever the
 * policy says.
 */
export async function deleteFile(
  services: HostServices,
  input: ToolInput<'delete_file'>,
): Promise<ToolOutput<'delete_file'>> {
  const target = locateEntry(services, input.path);
  const stats = await statOrUndefined(target, false);
  if (!stats) throw notFound(target, input.path);
  refuseVital(services, target);
  const kind = stats.isDirectory() ? 'folder' : stats.isSymbolicLink() ? 'symbolic link' : 'file';
  if (input.permanent) {
    try {
      await fs.promises.rm(target, { recursive: stats.isDirectory(), force: false });
    } catch (error) {
      throw fsError(error, target, 'delete');
    }
    return {
      success: true,
      original_path: target,
      deleted_to: 'deleted',
      message: `Deleted the ${kind} ${target} permanently; it cannot be restored.`,
    };
  }
  const { trashedTo } = await services.desktop.trash.moveToTrash(target);
  return {
    success: true,
    original_path: target,
    deleted_to: trashedTo,
    message: `Moved the ${kind} ${target} to the trash (${trashedTo}); it can be restored from there.`,
  };
}
