import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import { requireDisplay } from './display.js';

/**
 * A minimal X11 protocol client over the display's socket, in-process, with no native module:
 * synthetic pointer and key events (XTEST FakeInput, QueryPointer, GetKeyboardMapping), the
 * screen's size (GetGeometry) and its pixels (GetImage, for screenshots: see screen.ts).
 *
 * Why not libnut or xdotool: both move the pointer and press buttons without waiting for the X
 * server to process the button events. A window manager holds a synchronous button grab while it
 * decides about a click (openbox, like most, focuses and raises on click), and meanwhile the next
 * move is applied — under Xvfb + openbox, 299 of 300 quick move+click pairs sent through libnut
 * with its delays at 0 came at the wrong point (releases at the next point, some clicks lost), and
 * the same happened through `xdotool mousemove … click 1`. Here every press and release is
 * followed by QueryPointer until the button state shows it was processed; then the next event goes.
 *
 * Unlike Xlib, losing the server is an ordinary error here, not a process exit.
 */

const OPCODE = {
  getGeometry: 14,
  getImage: 73,
  queryPointer: 38,
  queryExtension: 98,
  getKeyboardMapping: 101,
} as const;
const XTEST_FAKE_INPUT = 2;

export const X_EVENT = { keyPress: 2, keyRelease: 3, buttonPress: 4, buttonRelease: 5, motion: 6 } as const;

/** Button state bits in QueryPointer's mask (buttons 6 and 7, horizontal wheel, have none). */
export function buttonMask(button: number): number {
  return button >= 1 && button <= 5 ? 0x80 << button : 0;
}

interface Pending {
  resolve(reply: Buffer | undefined): void;
  reject(error: Error): void;
  wantsReply: boolean;
}

const pad4 = (length: number) => (4 - (length % 4)) % 4;

/** An MIT-MAGIC-COOKIE-1 for the display from the Xauthority file, or none (e.g. `xhost +local:`). */
export function findCookie(file: Buffer, displayNumber: string, hostname: string): Buffer | undefined {
  let offset = 0;
  const read = (): Buffer | undefined => {
    if (offset + 2 > file.length) return undefined;
    const length = file.readUInt16BE(offset);
    const value = file.subarray(offset + 2, offset + 2 + length);
    offset += 2 + length;
    return value;
  };
  while (offset + 2 <= file.length) {
    const family = file.readUInt16BE(offset);
    offset += 2;
    const address = read();
    const number = read();
    const name = read();
    const data = read();
    if (!address || !number || !name || !data) return undefined;
    const hostMatches = family === 0xffff || (family === 256 && address.toString() === hostname);
    const numberMatches = number.length === 0 || number.toString() === displayNumber;
    if (hostMatches && numberMatches && name.toString() === 'MIT-MAGIC-COOKIE-1') return data;
  }
  return undefined;
}

/** How the root window's pixels arrive in a ZPixmap GetImage reply. */
export interface PixelFormat {
  depth: number;
  bitsPerPixel: number;
  /** Rows are padded to a multiple of this many bits. */
  scanlinePad: number;
  /** 0: least significant byte first (B, G, R, X on a 24-bit screen), 1: most significant first. */
  imageByteOrder: number;
}

/** Pixels of a screen area as the server sent them (rows possibly padded). */
export interface XImage {
  width: number;
  height: number;
  bytesPerRow: number;
  format: PixelFormat;
  data: Buffer;
}

export class XConnection {
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  /** Received bytes not yet parsed, kept as a list so a large reply (a screen image) is joined once. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  private asyncError: Error | undefined;
  private closed: Error | undefined;
  private keymap: { min: number; perKeycode: number; keysyms: Uint32Array } | undefined;
  /** The XTEST extension's major opcode. */
  private xtest = 0;

  private constructor(
    private readonly socket: net.Socket,
    readonly root: number,
    private readonly minKeycode: number,
    private readonly maxKeycode: number,
    readonly pixelFormat: PixelFormat,
  ) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    const end = (error?: Error) => {
      this.closed = new AppError(
        'UNAVAILABLE',
        `The connection to the X server was lost${error ? `: ${error.message}` : ''}.`,
      );
      for (const pending of this.pending.values()) pending.reject(this.closed);
      this.pending.clear();
    };
    socket.on('error', end);
    socket.on('close', () => end());
    socket.unref();
  }

  get isOpen(): boolean {
    return this.closed === undefined;
  }

  /** Connects to `display` (":1", "unix:1.0", "host:1") and checks that XTEST is there. */
  static async open(display: string, env: NodeJS.ProcessEnv): Promise<XConnection> {
    const match = /^(?<host>[^:]*):(?<number>\d+)(?:\.\d+)?$/u.exec(display);
    if (!match?.groups) throw new AppError('UNAVAILABLE', `DISPLAY="${display}" is not a valid X display name.`);
    const { host, number } = match.groups as { host: string; number: string };
    const local = host === '' || host === 'unix';
    const socket = net.connect(local ? { path: `/tmp/.X11-unix/X${number}` } : { host, port: 6000 + Number(number) });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error) =>
        reject(new AppError('UNAVAILABLE', `Cannot connect to the X display ${display}: ${error.message}`)),
      );
    });
    const cookie = readCookie(env, number);
    const name = cookie ? Buffer.from('MIT-MAGIC-COOKIE-1') : Buffer.alloc(0);
    const data = cookie ?? Buffer.alloc(0);
    const setup = Buffer.alloc(12 + name.length + pad4(name.length) + data.length + pad4(data.length));
    setup.write('l', 0, 'latin1');
    setup.writeUInt16LE(11, 2);
    setup.writeUInt16LE(0, 4);
    setup.writeUInt16LE(name.length, 6);
    setup.writeUInt16LE(data.length, 8);
    name.copy(setup, 12);
    data.copy(setup, 12 + name.length + pad4(name.length));
    const reply = await readSetupReply(socket, setup);
    if (reply[0] !== 1) {
      socket.destroy();
      const reason = reply.subarray(8, 8 + (reply[1] ?? 0)).toString('latin1');
      throw new AppError(
        'UNAVAILABLE',
        `The X display ${display} refused the connection: ${reason || 'authorization needed'}.`,
      );
    }
    const vendorLength = reply.readUInt16LE(24);
    const formats = reply[29]!;
    const formatsOffset = 40 + vendorLength + pad4(vendorLength);
    const screenOffset = formatsOffset + 8 * formats;
    const root = reply.readUInt32LE(screenOffset);
    const rootDepth = reply[screenOffset + 38]!;
    let pixelFormat: PixelFormat = { depth: rootDepth, bitsPerPixel: 0, scanlinePad: 32, imageByteOrder: reply[30]! };
    for (let index = 0; index < formats; index++) {
      const at = formatsOffset + 8 * index;
      if (reply[at] === rootDepth)
        pixelFormat = { ...pixelFormat, bitsPerPixel: reply[at + 1]!, scanlinePad: reply[at + 2]! };
    }
    const connection = new XConnection(socket, root, reply[34]!, reply[35]!, pixelFormat);
    const extension = await connection.queryExtension('XTEST');
    if (extension === undefined) {
      socket.destroy();
      throw new AppError(
        'UNAVAILABLE',
        `The X display ${display} has no XTEST extension, which synthetic input needs.`,
      );
    }
    connection.xtest = extension;
    return connection;
  }

  close(): void {
    this.socket.destroy();
  }

  async pointer(): Promise<{ x: number; y: number; mask: number }> {
    const request = Buffer.alloc(8);
    request.writeUInt8(OPCODE.queryPointer, 0);
    request.writeUInt16LE(2, 2);
    request.writeUInt32LE(this.root, 4);
    const reply = (await this.send(request, true))!;
    return { x: reply.readInt16LE(16), y: reply.readInt16LE(18), mask: reply.readUInt16LE(24) };
  }

  async screenSize(): Promise<{ width: number; height: number }> {
    const request = Buffer.alloc(8);
    request.writeUInt8(OPCODE.getGeometry, 0);
    request.writeUInt16LE(2, 2);
    request.writeUInt32LE(this.root, 4);
    const reply = (await this.send(request, true))!;
    return { width: reply.readUInt16LE(16), height: reply.readUInt16LE(18) };
  }

  /**
   * The pixels of an area of the root window (GetImage, ZPixmap). The area must lie on the screen:
   * the server answers BadMatch otherwise, which arrives here as an ordinary error.
   */
  async getImage(area: { x: number; y: number; width: number; height: number }): Promise<XImage> {
    const request = Buffer.alloc(20);
    request.writeUInt8(OPCODE.getImage, 0);
    request.writeUInt8(2, 1); // ZPixmap
    request.writeUInt16LE(5, 2);
    request.writeUInt32LE(this.root, 4);
    request.writeInt16LE(area.x, 8);
    request.writeInt16LE(area.y, 10);
    request.writeUInt16LE(area.width, 12);
    request.writeUInt16LE(area.height, 14);
    request.writeUInt32LE(0xffffffff, 16);
    const reply = (await this.send(request, true))!;
    const data = reply.subarray(32);
    return {
      width: area.width,
      height: area.height,
      bytesPerRow: area.height > 0 ? Math.floor(data.length / area.height) : 0,
      format: this.pixelFormat,
      data,
    };
  }

  /** XTEST FakeInput: queued without waiting (errors surface at the next reply). */
  fakeInput(type: number, detail: number, x = 0, y = 0): void {
    const request = Buffer.alloc(36);
    request.writeUInt8(this.xtest, 0);
    request.writeUInt8(XTEST_FAKE_INPUT, 1);
    request.writeUInt16LE(9, 2);
    request.writeUInt8(type, 4);
    request.writeUInt8(detail, 5);
    request.writeUInt32LE(0, 8); // CurrentTime
    request.writeUInt32LE(type === X_EVENT.motion ? this.root : 0, 12);
    request.writeInt16LE(x, 24);
    request.writeInt16LE(y, 26);
    void this.send(request, false);
  }

  /** The keycode that produces `keysym` at its first level, from the server's keyboard map. */
  async keycodeFor(keysym: number): Promise<number | undefined> {
    for (const refresh of [false, true]) {
      if (!this.keymap || refresh) this.keymap = await this.readKeymap();
      const { min, perKeycode, keysyms } = this.keymap;
      for (let index = 0; index < keysyms.length; index += perKeycode) {
        if (keysyms[index] === keysym) return min + index / perKeycode;
      }
    }
    return undefined;
  }

  /**
   * Waits until `test(mask)` holds (the server has processed the button events sent before), at
   * most `timeoutMs`; returns whether it did. Each poll is one round trip.
   */
  async waitForButtons(test: (mask: number) => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const { mask } = await this.pointer();
      if (test(mask)) return true;
      if (performance.now() > deadline) return false;
    }
  }

  private async readKeymap() {
    const count = this.maxKeycode - this.minKeycode + 1;
    const request = Buffer.alloc(8);
    request.writeUInt8(OPCODE.getKeyboardMapping, 0);
    request.writeUInt16LE(2, 2);
    request.writeUInt8(this.minKeycode, 4);
    request.writeUInt8(count, 5);
    const reply = (await this.send(request, true))!;
    const perKeycode = reply[1]!;
    const keysyms = new Uint32Array(count * perKeycode);
    for (let index = 0; index < keysyms.length; index++) keysyms[index] = reply.readUInt32LE(32 + index * 4);
    return { min: this.minKeycode, perKeycode, keysyms };
  }

  private async queryExtension(name: string): Promise<number | undefined> {
    const bytes = Buffer.from(name, 'latin1');
    const request = Buffer.alloc(8 + bytes.length + pad4(bytes.length));
    request.writeUInt8(OPCODE.queryExtension, 0);
    request.writeUInt16LE(request.length / 4, 2);
    request.writeUInt16LE(bytes.length, 4);
    bytes.copy(request, 8);
    const reply = (await this.send(request, true))!;
    return reply[8] ? reply[9] : undefined;
  }

  private send(request: Buffer, wantsReply: boolean): Promise<Buffer | undefined> {
    if (this.closed) return Promise.reject(this.closed);
    if (this.asyncError) {
      const error = this.asyncError;
      this.asyncError = undefined;
      return Promise.reject(error);
    }
    this.sequence = (this.sequence + 1) & 0xffff;
    const sequence = this.sequence;
    const promise = new Promise<Buffer | undefined>((resolve, reject) => {
      this.pending.set(sequence, { resolve, reject, wantsReply });
    });
    if (wantsReply) this.socket.ref();
    this.socket.write(request);
    if (!wantsReply) {
      // No answer comes for a request without a reply unless it fails; forget it once a later reply arrives.
      promise.catch(() => undefined);
    }
    return promise;
  }

  /** Joins the received chunks into one buffer of at least `size` bytes (at most one copy per reply). */
  private head(size: number): Buffer {
    if (this.chunks[0]!.length < size) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0]!;
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 32) {
      const header = this.head(32);
      const kind = header[0]!;
      const size = kind === 1 || kind === 35 ? 32 + 4 * header.readUInt32LE(4) : 32;
      if (this.buffered < size) break;
      const joined = this.head(size);
      const message = joined.subarray(0, size);
      if (joined.length === size) this.chunks.shift();
      else this.chunks[0] = joined.subarray(size);
      this.buffered -= size;
      if (kind > 1) continue; // an event: none are selected, ignore any
      const sequence = message.readUInt16LE(2);
      // Requests without replies that came before this one succeeded.
      for (const [pendingSequence, pending] of this.pending) {
        if (pendingSequence === sequence) break;
        if (!pending.wantsReply) {
          pending.resolve(undefined);
          this.pending.delete(pendingSequence);
        }
      }
      const pending = this.pending.get(sequence);
      this.pending.delete(sequence);
      if (kind === 0) {
        const error = new AppError(
          'TOOL_FAILED',
          `The X server refused a request (error ${message[1]}, opcode ${message[10]}).`,
        );
        if (pending?.wantsReply) pending.reject(error);
        else this.asyncError = error;
      } else {
        // A copy for small replies, so the socket's chunk is not kept alive; large ones (images) as they are.
        pending?.resolve(size <= 4096 ? Buffer.from(message) : message);
      }
    }
    if (![...this.pending.values()].some((pending) => pending.wantsReply)) this.socket.unref();
  }
}

function readCookie(env: NodeJS.ProcessEnv, displayNumber: string): Buffer | undefined {
  const file = env.XAUTHORITY || path.join(env.HOME || os.homedir(), '.Xauthority');
  try {
    return findCookie(fs.readFileSync(file), displayNumber, os.hostname());
  } catch {
    return undefined;
  }
}

function readSetupReply(socket: net.Socket, setup: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let received: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      cleanup();
      socket.destroy();
      reject(new AppError('UNAVAILABLE', 'The X server did not answer the connection setup within 2 s.'));
    }, 2000);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 8) return;
      const total = 8 + 4 * received.readUInt16LE(6);
      if (received.length < total) return;
      cleanup();
      if (received.length > total) socket.unshift(received.subarray(total));
      resolve(received.subarray(0, total));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new AppError('UNAVAILABLE', `The X server closed the connection during setup: ${error.message}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.write(setup);
  });
}

/**
 * A connection to the display in `env` that is opened on first use and opened again when the
 * display changes or the connection was lost; `onReopen` lets the caller drop what it cached
 * about the old one.
 */
export function reusableXConnection(env: NodeJS.ProcessEnv, onReopen?: () => void): () => Promise<XConnection> {
  let open: { display: string; connection: XConnection } | undefined;
  return async () => {
    const display = await requireDisplay(env);
    if (open && open.display === display && open.connection.isOpen) return open.connection;
    open?.connection.close();
    open = undefined;
    onReopen?.();
    const connection = await XConnection.open(display, env);
    open = { display, connection };
    return connection;
  };
}
