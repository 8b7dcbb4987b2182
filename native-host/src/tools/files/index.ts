import type { HandlerGroup, HostServices } from '../types.js';
import { PathLocks } from './atomic-write.js';
import { createDirectory, deleteFile } from './manage.js';
import { fileRead } from './read.js';
import { fileSearch } from './search.js';
import { FileWatches, type WatchLimits } from './watch.js';
import { fileEdit, fileWrite } from './write.js';

export type FileToolName =
  'file_read' | 'file_write' | 'file_edit' | 'file_search' | 'file_watch' | 'create_directory' | 'delete_file';

/**
 * The file tools. Paths are resolved as the policy's file guard resolves them — `~` and relative
 * paths from the home directory, `..` and symlinks followed — so what the guard allowed is what
 * is opened (see locate.ts). Writes and edits to one file run one at a time; watches live until
 * stopped or until the daemon disposes the group.
 */
export function createFileHandlers(
  services: HostServices,
  options: { watchLimits?: WatchLimits } = {},
): HandlerGroup<FileToolName> {
  const locks = new PathLocks();
  const watches = new FileWatches(services, options.watchLimits);
  return {
    handlers: {
      file_read: (input, context) => fileRead(services, input, context),
      file_write: (input) => fileWrite(services, locks, input),
      file_edit: (input) => fileEdit(services, locks, input),
      file_search: (input, context) => fileSearch(services, input, context),
      file_watch: (input) => watches.handle(input),
      create_directory: (input) => createDirectory(services, input),
      delete_file: (input) => deleteFile(services, input),
    },
    dispose: () => watches.dispose(),
  };
}
