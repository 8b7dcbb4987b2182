import { spawn, type ChildProcess } from 'node:child_process';

import { CLI_BUNDLE } from './paths.js';

/**
 * `nextai host` driven the way a browser drives it: a child process with length-prefixed JSON
 * frames over real pipes. Collects every frame it writes, with its exact size.
 */
export class NativeHostProcess {
  readonly child: ChildProcess;
  readonly frames: { value: unknown; bytes: number }[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  constructor(callerArgs: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [CLI_BUNDLE, 'host', ...callerArgs], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.child.stdin?.on('error', () => {
      // The host may exit before reading everything (that is what some tests provoke).
    });
  }

  send(message: unknown): void {
    const payload = Buffer.from(JSON.stringify(message), 'utf8');
    this.writeRaw(Buffer.concat([lengthPrefix(payload.length), payload]));
  }

  writeRaw(bytes: Buffer): void {
    this.child.stdin?.write(bytes);
  }

  closeInput(): void {
    this.child.stdin?.end();
  }

  /** Waits until a frame matching `predicate` has arrived and returns it. */
  async waitFor<T = Record<string, unknown>>(
    predicate: (value: Record<string, unknown>) => boolean,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find((frame) => predicate(frame.value as Record<string, unknown>));
      if (found) return found.value as T;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `No matching frame within ${timeoutMs} ms. Frames so far: ${JSON.stringify(this.frames.map((f) => f.value)).slice(0, 2000)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a request and waits for the response with the same id. */
  async call(
    id: number,
    method: string,
    params: Record<string, unknown> = {},
    timeoutMs?: number,
  ): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.waitFor((value) => value.id === id && ('result' in value || 'error' in value), timeoutMs);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32LE(0);
      if (this.buffer.length < 4 + length) break;
      const payload = this.buffer.subarray(4, 4 + length);
      this.frames.push({ value: JSON.parse(payload.toString('utf8')), bytes: length });
      this.buffer = this.buffer.subarray(4 + length);
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export function lengthPrefix(length: number): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32LE(length, 0);
  return header;
}
