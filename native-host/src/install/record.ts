import { createHash } from 'node:crypto';
import fs from 'node:fs';

import { AppError, describeZodError } from '@nextai/shared';
import { z } from 'zod';

import { BROWSERS } from './browsers.js';

/**
 * What `nextai install` wrote, so that `nextai uninstall` removes exactly that and nothing else.
 * Files carry the hash of what was written: a file someone changed (or another data directory's
 * install overwrote) since is left alone.
 */
const fileEntrySchema = z.object({
  kind: z.literal('file'),
  role: z.enum(['launcher', 'manifest']),
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  browser: z.enum(BROWSERS).optional(),
  /** Set when the manifest went into `<user data dir>/NativeMessagingHosts`. */
  userDataDir: z.string().min(1).optional(),
});

const registryEntrySchema = z.object({
  kind: z.literal('registry'),
  key: z.string().min(1),
  /** The default value written: the manifest path. */
  value: z.string().min(1),
  browser: z.enum(BROWSERS),
});

const recordEntrySchema = z.discriminatedUnion('kind', [fileEntrySchema, registryEntrySchema]);

export const installRecordSchema = z.object({
  version: z.literal(1),
  updatedAt: z.string(),
  entries: z.array(recordEntrySchema),
  /** Directories install created, so uninstall can remove them again once they are empty. */
  createdDirectories: z.array(z.string().min(1)),
});

export type FileRecordEntry = z.infer<typeof fileEntrySchema>;
export type RegistryRecordEntry = z.infer<typeof registryEntrySchema>;
export type RecordEntry = z.infer<typeof recordEntrySchema>;
export type InstallRecord = z.infer<typeof installRecordSchema>;

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export function entryIdentity(entry: RecordEntry): string {
  return entry.kind === 'file' ? `file:${entry.path}` : `registry:${entry.key.toLowerCase()}`;
}

/** Adds `added` to `record` (or a new record); an entry for the same path or key is replaced. */
export function mergeRecord(
  record: InstallRecord | undefined,
  added: readonly RecordEntry[],
  createdDirectories: readonly string[],
  now: Date,
): InstallRecord {
  const entries = new Map<string, RecordEntry>();
  for (const entry of [...(record?.entries ?? []), ...added]) entries.set(entryIdentity(entry), entry);
  return {
    version: 1,
    updatedAt: now.toISOString(),
    entries: [...entries.values()],
    createdDirectories: [...new Set([...(record?.createdDirectories ?? []), ...createdDirectories])],
  };
}

/** Reads the record; `undefined` when there is none. A damaged record is an error, never ignored. */
export function readInstallRecord(recordPath: string): InstallRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(recordPath, 'utf8');
  } catch (error) {
    // ENOTDIR: a parent of the data directory is a file, so there is no record either; writing
    // the launcher there will fail next, with a message about that path.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new AppError('STORAGE_ERROR', `Cannot read the install record ${recordPath}: ${String(error)}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw damaged(recordPath, error instanceof Error ? error.message : String(error), error);
  }
  const parsed = installRecordSchema.safeParse(json);
  if (!parsed.success) throw damaged(recordPath, describeZodError(parsed.error), parsed.error);
  return parsed.data;
}

function damaged(recordPath: string, reason: string, cause: unknown): AppError {
  return new AppError(
    'STORAGE_ERROR',
    `The install record ${recordPath} is damaged (${reason}). Fix or delete it, then run \`nextai install\` again; ` +
      'without it `nextai uninstall` cannot tell which files it wrote.',
    { cause, details: { path: recordPath } },
  );
}

export function serializeInstallRecord(record: InstallRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}
