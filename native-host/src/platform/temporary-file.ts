import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs `use` with the path of a file `name` in a fresh private temporary directory, and removes
 * the directory afterwards whatever happened — for OS programs that hand data over in files
 * (screen captures, clipboard images).
 */
export async function withTemporaryFile<T>(
  prefix: string,
  name: string,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    return await use(path.join(directory, name));
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}
