import { main } from './cli/main.js';

const argv = process.argv.slice(2);
if (argv[0] !== 'host') {
  // `nextai … | head` closes the pipe early; that is the reader's choice, not an error. (In
  // `nextai host`, stdout is the browser and a closed pipe is handled by the bridge.)
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
process.exitCode = await main(argv);
