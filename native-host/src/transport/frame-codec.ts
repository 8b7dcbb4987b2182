import { AppError } from '@nextai/shared/wire';

/** Bytes of the length prefix: a 32-bit unsigned little-endian integer (native messaging's format). */
export const HEADER_BYTES = 4;

/**
 * Serialises one message as a frame. Refuses — with `FRAME_TOO_LARGE`, before anything is
 * written — a message whose payload exceeds `maxBytes`: the receiver would drop the connection.
 */
export function encodeFrame(message: unknown, maxBytes: number): Buffer {
  const json = JSON.stringify(message);
  if (json === undefined) throw new AppError('INVALID_ARGUMENT', 'Only JSON values can be sent.');
  return encodeSerializedFrame(json, maxBytes);
}

export function encodeSerializedFrame(json: string, maxBytes: number): Buffer {
  const payloadBytes = Buffer.byteLength(json, 'utf8');
  if (payloadBytes > maxBytes) {
    throw new AppError('FRAME_TOO_LARGE', `A ${payloadBytes}-byte message is over the ${maxBytes}-byte limit.`, {
      details: { bytes: payloadBytes, limit: maxBytes },
    });
  }
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payloadBytes);
  frame.writeUInt32LE(payloadBytes, 0);
  frame.write(json, HEADER_BYTES, 'utf8');
  return frame;
}

export type FrameEvent =
  | { type: 'message'; value: unknown; bytes: number }
  /**
   * `fatal`: the stream can no longer be trusted (a declared length over the limit) and must be
   * closed. Otherwise the frame boundary is intact and reading goes on with the next frame.
   */
  | { type: 'error'; error: AppError; fatal: boolean };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Incremental reader of length-prefixed JSON frames. Feed it whatever the stream delivers; it
 * returns complete frames as they finish. Each payload is copied once into a buffer of its
 * declared size, so a 64 MiB frame arriving in 64 KiB pieces costs linear time, not quadratic.
 */
export class FrameReader {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFilled = 0;
  private payload: Buffer | undefined;
  private payloadFilled = 0;
  private failed = false;

  constructor(private readonly maxBytes: number) {}

  /** True while a frame has started but not finished: the stream ending now would truncate it. */
  get midFrame(): boolean {
    return this.headerFilled > 0 || this.payload !== undefined;
  }

  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    let offset = 0;
    while (offset < chunk.length && !this.failed) {
      if (this.payload === undefined) {
        const take = Math.min(HEADER_BYTES - this.headerFilled, chunk.length - offset);
        this.header.set(chunk.subarray(offset, offset + take), this.headerFilled);
        this.headerFilled += take;
        offset += take;
        if (this.headerFilled < HEADER_BYTES) break;
        const length = this.header.readUInt32LE(0);
        this.headerFilled = 0;
        if (length > this.maxBytes) {
          this.failed = true;
          events.push({
            type: 'error',
            fatal: true,
            error: new AppError(
              'FRAME_TOO_LARGE',
              `Incoming frame of ${length} bytes is over the ${this.maxBytes}-byte limit.`,
              {
                details: { bytes: length, limit: this.maxBytes },
              },
            ),
          });
          break;
        }
        this.payload = Buffer.allocUnsafe(length);
        this.payloadFilled = 0;
      }
      const payload = this.payload;
      const take = Math.min(payload.length - this.payloadFilled, chunk.length - offset);
      payload.set(chunk.subarray(offset, offset + take), this.payloadFilled);
      this.payloadFilled += take;
      offset += take;
      if (this.payloadFilled === payload.length) {
        this.payload = undefined;
        events.push(decodePayload(payload));
      }
    }
    return events;
  }

  /** Call when the stream ends; reports a truncated frame if one was in progress. */
  end(): FrameEvent | undefined {
    if (!this.midFrame || this.failed) return undefined;
    const received = this.payload ? this.payloadFilled : this.headerFilled;
    this.payload = undefined;
    this.headerFilled = 0;
    return {
      type: 'error',
      fatal: true,
      error: new AppError('FRAME_MALFORMED', `The stream ended inside a frame (${received} bytes of it received).`),
    };
  }
}

function decodePayload(payload: Buffer): FrameEvent {
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch (error) {
    return {
      type: 'error',
      fatal: false,
      error: new AppError('PARSE_ERROR', 'A frame was not valid UTF-8.', { cause: error }),
    };
  }
  try {
    return { type: 'message', value: JSON.parse(text) as unknown, bytes: payload.length };
  } catch (error) {
    return {
      type: 'error',
      fatal: false,
      error: new AppError('PARSE_ERROR', `A frame was not valid JSON: ${(error as Error).message}`, { cause: error }),
    };
  }
}
