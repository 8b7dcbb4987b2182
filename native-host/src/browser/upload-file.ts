import fs from 'node:fs';
import path from 'node:path';

import { AppError, type Platform, type UploadFile } from '@nextai/shared';

import { expandHome } from '../policy/guards/paths.js';

const TYPES: Record<string, string> = {
  '.txt': 'text/plain', '.csv': 'text/csv', '.json': 'application/json', '.pdf': 'application/pdf',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.zip': 'application/zip', '.md': 'text/markdown', '.html': 'text/html',
}; // prettier-ignore

/**
 * Reads the file of a browser_interact `upload` (the policy's file guard allowed the path before
 * the call got here) for the page, where it becomes a File in the chosen input.
 */
export function readUploadFile(file: string, homeDir: string, platform: Platform, maxBytes: number): UploadFile {
  const resolved = path.resolve(homeDir, expandHome(file, homeDir, platform));
  let data: Buffer;
  try {
    const stat = fs.statSync(resolved);
    if (!stat.isFile()) throw new AppError('INVALID_ARGUMENT', `${resolved} is not a file.`);
    if (stat.size > maxBytes)
      throw new AppError('INVALID_ARGUMENT', `${resolved} is larger than the ${maxBytes}-byte limit.`);
    data = fs.readFileSync(resolved);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('NOT_FOUND', `Cannot read ${resolved} to upload it: ${(error as Error).message}`);
  }
  return {
    name: path.basename(resolved),
    mime_type: TYPES[path.extname(resolved).toLowerCase()] ?? 'application/octet-stream',
    data_base64: data.toString('base64'),
  };
}
