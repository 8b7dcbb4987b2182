import { randomUUID } from 'node:crypto';
import fs from 'node:fs';

import { AppError, type ToolInput, type ToolOutput } from '@nextai/shared';

import { pathApiFor } from '../../policy/guards/paths.js';
import type { HostServices } from '../types.js';
import { fsError, locate, notFound, statOrUndefined } from './locate.js';
import { hasSkipMarker, SKIPPED_DIRECTORIES } from './search.js';

type Change = 'create' | 'modify' | 'delete';
const ALL_CHANGES: Change[] = ['create', 'modify', 'delete'];

export interface WatchLimits {
  /** Active watches at most (each holds inotify watches, a limited resource of the user). */
  watches: number;
  /** Folders one recursive watch follows at most. */
  directories: number;
  /** Events for one path within this window become one check (an editor's save is several events). */
  settleMs: number;
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = { watches: 20, directories: 4096, settleMs: 60 };

type WatchSummary = NonNullable<ToolOutput<'file_watch'>['watches']>[number];

interface Watch {
  id: string;
  /** The watched file or folder (real path). */
  path: string;
  /** For a watched file: the only path reported. */
  single: boolean;
  events: Set<Change>;
  recursive: boolean;
  startedAt: string;
  /** One fs.watch per folder (inotify watches a folder's direct children). */
  watchers: Map<string, fs.FSWatcher>;
  /** What exists under the path as far as we know, and whether it is a folder. */
  known: Map<string, boolean>;
  pending: Map<string, NodeJS.Timeout>;
  /** Folders not followed because the limit was reached. */
  capped: boolean;
  closed: boolean;
}

/**
 * `file_watch`: each change under a watched path becomes a `file.changed` event until the watch
 * is stopped. Node's recursive fs.watch on Linux (20.x) puts an inotify watch on every file and
 * cannot skip node_modules; here each folder gets one non-recursive watch (which reports its
 * direct children), dependency and VCS folders are skipped as in file_search, symlinks are not
 * followed, and folders created later are added. A file is watched through its folder, so an
 * editor that saves by replacing the file is still followed.
 *
 * The kind of change is decided by looking (lstat) once the burst of raw events for a path has
 * settled, against what was known to exist: new → create, known and present → modify, known and
 * gone → delete. A file created and removed within one settle window produces nothing.
 */
export class FileWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly services: HostServices,
    private readonly limits: WatchLimits = DEFAULT_WATCH_LIMITS,
  ) {}

  async handle(input: ToolInput<'file_watch'>): Promise<ToolOutput<'file_watch'>> {
    switch (input.action) {
      case 'start':
        return this.start(input);
      case 'stop':
        return this.stop(input.watch_id as string);
      case 'list':
        return {
          watches: this.list(),
          message: `${this.watches.size} active watch${this.watches.size === 1 ? '' : 'es'}.`,
        };
    }
  }

  list(): WatchSummary[] {
    return [...this.watches.values()].map((watch) => ({
      watch_id: watch.id,
      path: watch.path,
      events: ALL_CHANGES.filter((change) => watch.events.has(change)),
      recursive: watch.recursive,
      started_at: watch.startedAt,
    }));
  }

  private async start(input: ToolInput<'file_watch'>): Promise<ToolOutput<'file_watch'>> {
    const { real } = locate(this.services, input.path as string, 'read', 'watched');
    const stats = await statOrUndefined(real);
    if (!stats) throw notFound(real, input.path as string);
    if (this.watches.size >= this.limits.watches) {
      throw new AppError(
        'INVALID_INPUT',
        `${this.watches.size} watches are active, the most there may be. Stop one first (file_watch with action "list" shows them, action "stop" ends one).`,
      );
    }
    const api = pathApiFor(this.services.platform);
    const watch: Watch = {
      id: `watch_${randomUUID().slice(0, 8)}`,
      path: real,
      single: !stats.isDirectory(),
      events: new Set(input.events && input.events.length > 0 ? input.events : ALL_CHANGES),
      recursive: input.recursive && stats.isDirectory(),
      startedAt: new Date().toISOString(),
      watchers: new Map(),
      known: new Map(),
      pending: new Map(),
      capped: false,
      closed: false,
    };
    this.watches.set(watch.id, watch);
    try {
      if (watch.single) {
        watch.known.set(real, false);
        this.watchFolder(watch, api.dirname(real));
      } else {
        watch.known.set(real, true);
        await this.follow(watch, real, false);
      }
    } catch (error) {
      this.close(watch);
      this.watches.delete(watch.id);
      throw fsError(error, real, 'watch');
    }
    const what = watch.single
      ? 'the file'
      : watch.recursive
        ? `${watch.watchers.size} folder(s)`
        : 'the folder (not its subfolders)';
    const cap = watch.capped
      ? ` Only the first ${this.limits.directories} folders are watched; watch a smaller folder to see changes everywhere in it.`
      : '';
    return {
      watch_id: watch.id,
      path: real,
      watches: this.list(),
      message: `Watching ${what} at ${real} for ${[...watch.events].join(', ')}; each change arrives as a file.changed event. Stop with action "stop" and watch_id "${watch.id}".${cap}`,
    };
  }

  private stop(id: string): ToolOutput<'file_watch'> {
    const watch = this.watches.get(id);
    if (!watch) {
      const active = [...this.watches.keys()];
      throw new AppError(
        'NOT_FOUND',
        `There is no watch "${id}". Active watches: ${active.length > 0 ? active.join(', ') : 'none'}.`,
        { details: { watch_id: id, active } },
      );
    }
    this.close(watch);
    this.watches.delete(id);
    return { watch_id: id, path: watch.path, watches: this.list(), message: `Stopped watching ${watch.path}.` };
  }

  dispose(): void {
    for (const watch of this.watches.values()) this.close(watch);
    this.watches.clear();
  }

  private close(watch: Watch): void {
    watch.closed = true;
    for (const watcher of watch.watchers.values()) watcher.close();
    watch.watchers.clear();
    for (const timer of watch.pending.values()) clearTimeout(timer);
    watch.pending.clear();
  }

  /**
   * Watches `folder` and (recursively) the folders in it, recording what exists. `announce`:
   * the folder is new, so what is already in it was created too (it may have been filled before
   * its watch was in place).
   */
  private async follow(watch: Watch, folder: string, announce: boolean): Promise<void> {
    const api = pathApiFor(this.services.platform);
    const queue = [folder];
    while (queue.length > 0 && !watch.closed) {
      const current = queue.shift() as string;
      if (watch.watchers.size >= this.limits.directories) {
        watch.capped = true;
        return;
      }
      try {
        this.watchFolder(watch, current);
      } catch (error) {
        // An unreadable or vanished subfolder is left out; the watch's own folder and the system limit are errors.
        if (current === watch.path || (error instanceof AppError && error.code === 'UNAVAILABLE')) throw error;
        continue;
      }
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(current, { withFileTypes: true });
      } catch (error) {
        if (current === watch.path) throw error;
        // Removed or unreadable meanwhile: its own events say what happened.
        continue;
      }
      for (const entry of entries) {
        const child = api.join(current, entry.name);
        const folderEntry = entry.isDirectory();
        if (announce && !watch.known.has(child) && !watch.pending.has(child)) this.report(watch, child, 'create');
        if (!watch.pending.has(child)) watch.known.set(child, folderEntry);
        if (
          folderEntry &&
          watch.recursive &&
          !SKIPPED_DIRECTORIES.has(entry.name) &&
          !(await hasSkipMarker(child, api))
        ) {
          queue.push(child);
        }
      }
    }
  }

  private watchFolder(watch: Watch, folder: string): void {
    if (watch.watchers.has(folder) || watch.closed) return;
    const api = pathApiFor(this.services.platform);
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(folder, { persistent: false }, (_event, name) => {
        if (name === null) return;
        this.schedule(watch, api.join(folder, name.toString()));
        // The folder itself went away (inotify's "delete self" arrives with its own name).
        if (!fs.existsSync(folder)) this.schedule(watch, folder);
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EMFILE') {
        throw new AppError(
          'UNAVAILABLE',
          `The system's limit on watched folders is reached (${code}). Watch a smaller folder, stop other watches, or raise fs.inotify.max_user_watches.`,
          { cause: error },
        );
      }
      throw error;
    }
    watcher.on('error', (error) => {
      // A folder removed under the watcher ends it with an error on some systems; that is a delete, not a failure.
      this.services.log.debug('file_watch: a folder watcher ended', { folder, error: String(error) });
      watcher.close();
      watch.watchers.delete(folder);
      this.schedule(watch, folder);
    });
    watch.watchers.set(folder, watcher);
  }

  private schedule(watch: Watch, file: string): void {
    if (watch.closed || watch.pending.has(file)) return;
    if (watch.single && file !== watch.path) return;
    // Not reset by later events: a file written continuously is still reported, once per window.
    const timer = setTimeout(() => {
      watch.pending.delete(file);
      this.check(watch, file).catch((error: unknown) => {
        this.services.log.warn('file_watch: could not check a change', { path: file, error: String(error) });
      });
    }, this.limits.settleMs);
    timer.unref();
    watch.pending.set(file, timer);
  }

  private async check(watch: Watch, file: string): Promise<void> {
    if (watch.closed) return;
    const stats = await fs.promises.lstat(file).catch(() => undefined);
    const wasFolder = watch.known.get(file);
    if (stats) {
      const isFolder = stats.isDirectory();
      if (wasFolder === undefined) {
        watch.known.set(file, isFolder);
        this.report(watch, file, 'create');
        const api = pathApiFor(this.services.platform);
        const name = api.basename(file);
        if (isFolder && watch.recursive && !SKIPPED_DIRECTORIES.has(name)) await this.follow(watch, file, true);
      } else if (!isFolder) {
        watch.known.set(file, false);
        this.report(watch, file, 'modify');
      }
      return;
    }
    if (wasFolder === undefined) return;
    if (wasFolder) this.forgetBelow(watch, file);
    watch.known.delete(file);
    this.report(watch, file, 'delete');
  }

  /** A folder is gone: what was known inside it is gone too (reported, deepest first). */
  private forgetBelow(watch: Watch, folder: string): void {
    const sep = this.services.platform === 'windows' ? '\\' : '/';
    const prefix = folder.endsWith(sep) ? folder : `${folder}${sep}`;
    const inside = [...watch.known.keys()]
      .filter((known) => known.startsWith(prefix))
      .sort((a, b) => b.length - a.length);
    for (const known of inside) {
      watch.known.delete(known);
      this.report(watch, known, 'delete');
    }
    for (const [watched, watcher] of watch.watchers) {
      if (watched === folder || watched.startsWith(prefix)) {
        watcher.close();
        watch.watchers.delete(watched);
      }
    }
  }

  private report(watch: Watch, file: string, change: Change): void {
    if (watch.closed || !watch.events.has(change)) return;
    try {
      this.services.emit('file.changed', { watch_id: watch.id, path: file, change });
    } catch (error) {
      this.services.log.warn('file_watch: could not record an event', { path: file, error: String(error) });
    }
  }
}
