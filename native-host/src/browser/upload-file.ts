import fs from 'node:fs';
import path from 'node:path';

import { AppError, type UploadFile } from '@nextai/shared';

import { openFileForReadingSync } from '../tools/files/pinned.js';

const TYPES: Record<string, string> = {
  '.txt': 'text/plain', '.csv': 'text/csv', '.json': 'application/json', '.pdf': 'application/pdf',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.zip': 'application/zip', '.md': 'text/markdown', '.html': 'text/html',
}; // prettier-ignore

/**
 * Reads the file of a browser_interact `upload` for the page, where it becomes a File in the
 * chosen input. The policy's file guard allowed the path when it decided; `locate` resolves it and
 * asks the guard again now (the call may have waited for a person while a folder on the way was
 * replaced by a link to NextAI's own files), and the file is read from a descriptor opened without
 * following a new link and confirmed to be the file at that real path (tools/files/pinned.ts).
 */
export function readUploadFile(file: string, locate: (file: string) => string, maxBytes: number): UploadFile {
  const resolved = locate(file);
  let data: Buffer;
  let fd: number | undefined;
  try {
    fd = openFileForReadingSync(resolved);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new AppError('INVALID_ARGUMENT', `${resolved} is not a file.`);
    if (stat.size > maxBytes)
      throw new AppError('INVALID_ARGUMENT', `${resolved} is larger than the ${maxBytes}-byte limit.`);
    data = fs.readFileSync(fd);
  } catch (error) {
    if (error instanceof AppError && error.code !== 'NOT_FOUND') throw error;
    throw new AppError('NOT_FOUND', `Cannot read ${resolved} to upload it: ${(error as Error).message}`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return {
    name: path.basename(resolved),
    mime_type: TYPES[path.extname(resolved).toLowerCase()] ?? 'application/octet-stream',
    data_base64: data.toString('base64'),
  };
}
