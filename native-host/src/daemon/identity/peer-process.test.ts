import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { currentPlatform } from '../../core/current-platform.js';
import { peerOf } from './peer-process.js';

describe('peerOf', () => {
  it.runIf(currentPlatform() === 'linux')('names the real process on the other end of a Unix socket', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-peer-'));
    const socketPath = path.join(dir, 's.sock');
    const seen = new Promise<ReturnType<typeof peerOf>>((resolve) => {
      const server = net.createServer((socket) => {
        resolve(peerOf(socket, 'linux'));
        socket.end();
        server.close();
      });
      server.listen(socketPath);
    });
    // A separate program connects, so the pid the kernel reports is its own, not ours.
    const child = spawn(process.execPath, [
      '-e',
      `const s = require('net').connect(${JSON.stringify(socketPath)}); s.on('data', () => {}); s.on('end', () => process.exit(0));`,
    ]);
    const result = await seen;
    expect(result).toEqual({ ok: true, peer: { pid: child.pid, uid: process.getuid?.() } });
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says why where the system cannot name the peer', () => {
    const result = peerOf(new net.Socket(), 'windows');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('windows') });
  });
});
