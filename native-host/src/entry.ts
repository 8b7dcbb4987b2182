import { fileURLToPath } from 'node:url';

import { setCliProgramPath } from './client/self-path.js';

setCliProgramPath(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);

if (argv[0] === 'host') {
  // The browser starts `nextai host` for every connection (and for every sendNativeMessage), so
  // it loads only the bridge: not the CLI parser, the daemon, SQLite or the tool catalog.
  const { runHost } = await import('./host/run-host.js');
  process.exitCode = await runHost(argv.slice(1));
} else {
  // `nextai … | head` closes the pipe early; that is the reader's choice, not an error. (In
  // `nextai host`, stdout is the browser and a closed pipe is handled by the bridge.)
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const { main } = await import('./cli/main.js');
  process.exitCode = await main(argv);
}
