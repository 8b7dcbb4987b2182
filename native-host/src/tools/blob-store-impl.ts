import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { BlobStore } from './blob-store.js';

/** Base64 characters returned inline; larger payloads are stored and referenced (well under a 1 MiB frame). */
export const DEFAULT_INLINE_LIMIT = 512 * 1024;
/** Stored payloads older than this are pruned (a reference is for the turn that made it, not for ever). */
const MAX_AGE_MS = 60 * 60 * 1000;
/** At most this many payloads are kept, newest first. */
const MAX_COUNT = 200;

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/octet-stream': 'bin',
};

/**
 * Payloads as files in one private directory (`<data dir>/screenshots/blobs`), so a screenshot
 * can be looked at later and survives a reconnect of the client that asked for it. The file name
 * carries the id and the type: `<id>.<ext>`. Pruned by age and count on every put.
 */
export class FileBlobStore implements BlobStore {
  constructor(
    private readonly directory: string,
    readonly inlineLimit = DEFAULT_INLINE_LIMIT,
  ) {}

  inlineOrReference(data: Buffer, mimeType: string): string {
    // base64 grows by 4/3: decide on the encoded size without encoding a large payload twice.
    if (Math.ceil(data.length / 3) * 4 <= this.inlineLimit) return data.toString('base64');
    return this.put(data, mimeType);
  }

  put(data: Buffer, mimeType: string): string {
    fs.mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    const id = randomBytes(12).toString('hex');
    const extension = EXTENSIONS[mimeType] ?? 'bin';
    fs.writeFileSync(path.join(this.directory, `${id}.${extension}`), data, { mode: 0o600 });
    this.prune();
    return `blob:${id}`;
  }

  get(reference: string): { data: Buffer; mimeType: string } {
    const id = reference.replace(/^blob:/u, '');
    if (!/^[0-9a-f]{24}$/u.test(id)) {
      throw new AppError(
        'INVALID_INPUT',
        `"${reference}" is not a payload reference (they look like blob:<24 hex digits>).`,
      );
    }
    for (const [mimeType, extension] of Object.entries(EXTENSIONS)) {
      const file = path.join(this.directory, `${id}.${extension}`);
      try {
        return { data: fs.readFileSync(file), mimeType };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    throw new AppError(
      'NOT_FOUND',
      `The payload ${reference} is gone: stored payloads are kept for an hour (and the last ${MAX_COUNT}). Take a new screenshot.`,
    );
  }

  private prune(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.directory);
    } catch {
      return;
    }
    const now = Date.now();
    const files = names
      .map((name) => {
        const file = path.join(this.directory, name);
        try {
          return { file, mtime: fs.statSync(file).mtimeMs };
        } catch {
          return undefined;
        }
      })
      .filter((entry) => entry !== undefined)
      .sort((a, b) => b.mtime - a.mtime);
    files.forEach((entry, index) => {
      if (index >= MAX_COUNT || now - entry.mtime > MAX_AGE_MS) fs.rmSync(entry.file, { force: true });
    });
  }
}
