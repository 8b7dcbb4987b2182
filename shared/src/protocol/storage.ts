import { z } from 'zod';

import { messageTranslationsSchema } from '../i18n.js';

/**
 * Why the daemon's database cannot be written, in the words a person acts on: the disk is full,
 * the file or folder became read-only, another program holds the lock, the folder may not be
 * opened, the disk reported an error, or the file was replaced or removed while the daemon had it
 * open (it then restarts on the file now there).
 */
export const STORAGE_PROBLEMS = ['disk_full', 'read_only', 'locked', 'permission', 'io_error', 'replaced'] as const;
export type StorageProblem = (typeof STORAGE_PROBLEMS)[number];

/**
 * Whether the daemon can save what it is asked to (`daemon.status` and the `storage.health`
 * event). While it cannot, reading still works and writes wait or are refused; `message` says
 * what is wrong and `fix` what to do about it, both in English with their translations.
 */
export const storageHealthSchema = z.object({
  ok: z.boolean(),
  /** The data folder the database lives in. */
  data_dir: z.string(),
  problem: z.enum(STORAGE_PROBLEMS).optional(),
  /** SQLite's own code (SQLITE_FULL, SQLITE_READONLY, SQLITE_BUSY…), for whoever reports it. */
  code: z.string().optional(),
  /** When writing first failed (ISO time). */
  since: z.string().optional(),
  message: z.string().optional(),
  message_translations: messageTranslationsSchema.optional(),
  fix: z.string().optional(),
  fix_translations: messageTranslationsSchema.optional(),
  /**
   * The data folder is on a network file system (NFS, SMB, sshfs…), where SQLite's locking is
   * unreliable: said while writing works too, since what it risks shows only when a lock is lost.
   */
  network_file_system: z
    .object({
      /** The file system's type as the system names it (nfs4, cifs, fuse.sshfs…). */
      type: z.string(),
      mount_point: z.string().optional(),
      message: z.string(),
      message_translations: messageTranslationsSchema.optional(),
      fix: z.string(),
      fix_translations: messageTranslationsSchema.optional(),
    })
    .optional(),
  /** On the event that says writing works again: the problem that ended. */
  recovered_from: z.object({ problem: z.enum(STORAGE_PROBLEMS), code: z.string(), since: z.string() }).optional(),
});
export type StorageHealthReport = z.infer<typeof storageHealthSchema>;

/**
 * Events of the daemon's storage (merged into EVENT_DATA_SCHEMAS). `storage.health` is sent when
 * writing stops working and when it works again. The first cannot be written to the event log —
 * that is what failed — so it reaches the clients connected then, carrying the seq of the last
 * event that was written, and is written to the log later; a client that connects meanwhile
 * learns the state from `daemon.status`.
 */
export const STORAGE_EVENT_SCHEMAS = {
  'storage.health': storageHealthSchema,
} as const;
