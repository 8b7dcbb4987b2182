import { execFileSync, spawn } from 'node:child_process';

import { currentPlatform } from '../../core/current-platform.js';

/** Windows has no named pipes in the file system. */
export const NO_FIFOS = currentPlatform() === 'windows';

/**
 * Makes `file` a named pipe (FIFO) that nobody writes to: what a chaos test puts where
 * config.json should be. A reader that opens it and waits would wait forever; so, as a safety
 * net, a writer opens it after three seconds and closes it at once. Code that blocked on the pipe
 * is then released with an empty read and the test fails on the time it took instead of hanging
 * the run. Call the returned function when done (it ends that writer).
 */
export function fifoWithoutWriter(file: string): () => void {
  execFileSync('mkfifo', [file]);
  const writer = spawn('sh', ['-c', 'sleep 3; exec 3>"$1"', 'sh', file], { stdio: 'ignore' });
  writer.unref();
  return () => {
    writer.kill();
  };
}
