import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

import type { Platform } from '@nextai/shared';
import type KoffiModule from 'koffi';

/**
 * The process at the other end of a local socket, as the kernel tells it: Linux `SO_PEERCRED`,
 * macOS `LOCAL_PEERPID`. The kernel records it when the client connects, so a client cannot
 * claim to be another process. Node has no API for either, so the one foreign call of the daemon
 * goes through koffi (prebuilt for every platform inside its npm package; nothing is compiled).
 *
 * Windows named pipes have `GetNamedPipeClientProcessId`, but Node does not expose the pipe's
 * handle: there the peer stays unknown (the caller says so).
 */
export interface PeerCredentials {
  pid: number;
  uid?: number | undefined;
}

export type PeerLookup = { ok: true; peer: PeerCredentials } | { ok: false; reason: string };

type PeerReader = (fd: number) => PeerCredentials | undefined;

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
/** macOS <sys/un.h>: level SOL_LOCAL (0), option LOCAL_PEERPID (2). */
const SOL_LOCAL = 0;
const LOCAL_PEERPID = 2;

/** One reader per platform, loaded on first use; `problem` says why there is none. */
const readers = new Map<Platform, { read: PeerReader | null; problem?: string }>();

function loadReader(platform: Platform): { read: PeerReader | null; problem?: string } {
  if (platform !== 'linux' && platform !== 'macos') {
    return {
      read: null,
      problem: `${platform} does not tell the daemon which process is on the other end of its pipe`,
    };
  }
  try {
    // koffi is CommonJS and loaded only where it is used (the CLI never needs it).
    const koffi = createRequire(import.meta.url)('koffi') as typeof KoffiModule;
    if (platform === 'linux') {
      const libc = koffi.load('libc.so.6');
      const ucred = koffi.struct('nextai_ucred', { pid: 'int32', uid: 'uint32', gid: 'uint32' });
      const getsockopt = libc.func('int getsockopt(int, int, int, _Out_ nextai_ucred *, _Inout_ uint32 *)');
      return {
        read: (fd) => {
          const credentials: { pid?: number; uid?: number } = {};
          const length = [koffi.sizeof(ucred)];
          if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, credentials, length) !== 0) return undefined;
          return credentials.pid ? { pid: credentials.pid, uid: credentials.uid } : undefined;
        },
      };
    }
    const libc = koffi.load('libSystem.B.dylib');
    const getsockopt = libc.func('int getsockopt(int, int, int, _Out_ int32 *, _Inout_ uint32 *)');
    return {
      read: (fd) => {
        const pid = [0];
        if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, pid, [4]) !== 0) return undefined;
        return pid[0] ? { pid: pid[0] } : undefined;
      },
    };
  } catch (error) {
    // The first line says what is wrong; the require stack after it is noise to a person.
    const reason = (error as Error).message.split('\n')[0];
    return { read: null, problem: `the peer-credentials call could not be loaded (${reason})` };
  }
}

/** The file descriptor under a connected socket (libuv's pipe handle keeps it). */
function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The client process of `socket`, or why it cannot be known. */
export function peerOf(socket: Socket, platform: Platform): PeerLookup {
  let reader = readers.get(platform);
  if (!reader) {
    reader = loadReader(platform);
    readers.set(platform, reader);
  }
  if (!reader.read) return { ok: false, reason: reader.problem ?? 'unknown' };
  const fd = socketFd(socket);
  if (fd === undefined) return { ok: false, reason: 'the connection has no file descriptor' };
  const peer = reader.read(fd);
  return peer ? { ok: true, peer } : { ok: false, reason: 'the kernel did not name the process on the other end' };
}
