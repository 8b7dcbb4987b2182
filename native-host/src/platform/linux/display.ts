import net from 'node:net';

import { AppError } from '@nextai/shared';

/**
 * Screen, input and window tools need an X display, so every X adapter calls `requireDisplay`
 * first: it checks that DISPLAY is set and that its X server accepts a connection, and throws
 * UNAVAILABLE with the fix otherwise — a message a person can act on, where the X programs would
 * only say "Can't open display".
 * A positive answer is cached briefly: the check is on every screen/input call.
 */
const CACHE_MS = 2000;
let cached: { display: string; until: number } | undefined;

export async function requireDisplay(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const display = env.DISPLAY;
  if (!display) {
    if (env.WAYLAND_DISPLAY) {
      throw new AppError(
        'UNAVAILABLE',
        'This is a Wayland session without X11 (XWayland): screen and input tools need X11. Log in with an "Xorg" session, or enable XWayland.',
      );
    }
    throw new AppError(
      'UNAVAILABLE',
      'No display: DISPLAY is not set for the NextAI daemon, so it cannot see or control the screen. Start the daemon from your desktop session (or set DISPLAY, e.g. DISPLAY=:0), then run `nextai doctor`.',
    );
  }
  if (cached && cached.display === display && cached.until > Date.now()) return display;
  await probe(display);
  cached = { display, until: Date.now() + CACHE_MS };
  return display;
}

/** Connects to the X server's socket and closes again. */
function probe(display: string): Promise<void> {
  const match = /^(?<host>[^:]*):(?<number>\d+)(?:\.\d+)?$/u.exec(display);
  if (!match?.groups) {
    return Promise.reject(
      new AppError('UNAVAILABLE', `DISPLAY="${display}" is not a valid X display name (e.g. ":0").`),
    );
  }
  const { host, number } = match.groups;
  const local = host === '' || host === 'unix';
  const options: net.NetConnectOpts = local
    ? { path: `/tmp/.X11-unix/X${number}` }
    : { host, port: 6000 + Number(number) };
  return new Promise((resolve, reject) => {
    const socket = net.connect(options);
    const fail = (why: string) => {
      socket.destroy();
      reject(
        new AppError(
          'UNAVAILABLE',
          `The X display ${display} is not reachable (${why}). Is the desktop session running? Check with \`nextai doctor\`.`,
        ),
      );
    };
    const timer = setTimeout(() => fail('no answer within 1 s'), 1000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(error.code ?? error.message);
    });
  });
}
