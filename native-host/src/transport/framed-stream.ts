import type { Readable, Writable } from 'node:stream';

import { AppError, toAppError } from '@nextai/shared/wire';

import { FrameReader, encodeFrame, encodeSerializedFrame } from './frame-codec.js';

const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024;

export interface FramedStreamOptions {
  readable: Readable;
  writable: Writable;
  maxInboundBytes: number;
  maxOutboundBytes: number;
  /**
   * Bytes written but not yet taken by the other side before it counts as not reading and the
   * connection is dropped, so a stuck client cannot make this process buffer without limit.
   */
  maxBufferedBytes?: number;
  onMessage: (value: unknown) => void;
  /** A frame that could not be decoded; with `fatal`, reading stops. */
  onFrameError: (error: AppError, fatal: boolean) => void;
  /**
   * Called once, when no more input will come: the other side ended its output, a stream
   * failed, or reading stopped after a fatal frame. Writing may still work (a half-closed pipe);
   * call `close()` when done.
   */
  onInputEnd: (reason: AppError | undefined) => void;
}

/**
 * Length-prefixed JSON messages over a pair of byte streams: stdin/stdout for native messaging,
 * or both directions of one socket. Streams are parameters, so tests use in-memory pairs.
 */
export class FramedStream {
  private readonly reader: FrameReader;
  private inputEnded = false;
  private outputClosed = false;

  constructor(private readonly options: FramedStreamOptions) {
    this.reader = new FrameReader(options.maxInboundBytes);
    options.readable.on('data', (chunk: Buffer) => this.onData(chunk));
    options.readable.on('end', () => {
      const truncated = this.reader.end();
      if (truncated?.type === 'error' && !this.inputEnded) options.onFrameError(truncated.error, true);
      this.endInput(undefined);
    });
    options.readable.on('close', () => this.endInput(undefined));
    options.readable.on('error', (error) => this.endInput(toAppError(error, 'DISCONNECTED')));
    options.writable.on('error', (error) => {
      this.outputClosed = true;
      this.endInput(toAppError(error, 'DISCONNECTED'));
    });
  }

  /** True once nothing more can be written. */
  get isClosed(): boolean {
    return this.outputClosed;
  }

  /** Writes one message; throws FRAME_TOO_LARGE (writing nothing) when it is over the limit. */
  send(message: unknown): void {
    this.write(encodeFrame(message, this.options.maxOutboundBytes));
  }

  sendSerialized(json: string): void {
    this.write(encodeSerializedFrame(json, this.options.maxOutboundBytes));
  }

  /** Stops reading and ends the writable side once pending writes are flushed. */
  close(): void {
    if (!this.outputClosed) {
      this.outputClosed = true;
      this.options.writable.end();
    }
    this.options.readable.pause();
    this.endInput(undefined);
  }

  private write(frame: Buffer): void {
    if (this.outputClosed) throw new AppError('DISCONNECTED', 'The connection is closed.');
    this.options.writable.write(frame);
    const limit = this.options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    if (this.options.writable.writableLength > limit) {
      this.outputClosed = true;
      this.options.writable.destroy();
      this.endInput(
        new AppError(
          'DISCONNECTED',
          `The other side stopped reading (over ${limit} bytes waiting); connection dropped.`,
        ),
      );
    }
  }

  private onData(chunk: Buffer): void {
    if (this.inputEnded) return;
    for (const event of this.reader.push(chunk)) {
      if (event.type === 'message') {
        this.options.onMessage(event.value);
      } else {
        this.options.onFrameError(event.error, event.fatal);
        if (event.fatal) {
          this.options.readable.pause();
          this.endInput(undefined);
          return;
        }
      }
    }
  }

  private endInput(reason: AppError | undefined): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.options.onInputEnd(reason);
  }
}
