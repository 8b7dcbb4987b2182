import { CHUNK_CHARS, MAX_BROWSER_TO_HOST_BYTES } from '../constants.js';
import { AppError } from '../errors.js';
import type { ChunkParams } from './methods.js';

/**
 * Splits the serialized JSON of one message into `bridge.chunk` notifications, each small enough
 * for native messaging. Cuts never fall inside a UTF-16 surrogate pair, so every piece is valid
 * text on its own and the pieces concatenate back to the exact original.
 */
export function splitIntoChunks(serialized: string, messageId: string, chunkChars = CHUNK_CHARS): ChunkParams[] {
  if (chunkChars < 2) throw new AppError('INVALID_ARGUMENT', 'Chunks must hold at least two characters.');
  const pieces: string[] = [];
  let start = 0;
  while (start < serialized.length) {
    let end = Math.min(start + chunkChars, serialized.length);
    if (end < serialized.length && isHighSurrogate(serialized.charCodeAt(end - 1))) end -= 1;
    pieces.push(serialized.slice(start, end));
    start = end;
  }
  return pieces.map((data, index) => ({ message_id: messageId, index, count: pieces.length, data }));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

interface PartialMessage {
  pieces: (string | undefined)[];
  received: number;
  chars: number;
  startedAt: number;
}

/**
 * Reassembles chunked messages on the receiving side. Bounded: a message may not exceed
 * `maxChars`, at most `maxInFlight` messages are assembled at once, and pieces that stop arriving
 * are dropped after `staleAfterMs`.
 */
export class ChunkAssembler {
  private readonly partial = new Map<string, PartialMessage>();

  constructor(
    private readonly limits: { maxChars: number; maxInFlight: number; staleAfterMs: number } = {
      maxChars: MAX_BROWSER_TO_HOST_BYTES,
      maxInFlight: 16,
      staleAfterMs: 60_000,
    },
  ) {}

  /** Adds one piece; returns the whole serialized message once its last piece arrived. */
  add(chunk: ChunkParams, now: number): string | undefined {
    this.dropStale(now);
    if (chunk.index >= chunk.count) {
      throw new AppError('FRAME_MALFORMED', `Chunk ${chunk.index} is outside its message of ${chunk.count}.`);
    }
    let message = this.partial.get(chunk.message_id);
    if (!message) {
      if (this.partial.size >= this.limits.maxInFlight) {
        throw new AppError('FRAME_TOO_LARGE', 'Too many chunked messages in flight at once.');
      }
      message = { pieces: new Array<string | undefined>(chunk.count), received: 0, chars: 0, startedAt: now };
      this.partial.set(chunk.message_id, message);
    }
    if (message.pieces.length !== chunk.count) {
      this.partial.delete(chunk.message_id);
      throw new AppError('FRAME_MALFORMED', `Chunks of message ${chunk.message_id} disagree on their count.`);
    }
    if (message.pieces[chunk.index] !== undefined) return undefined;
    message.chars += chunk.data.length;
    if (message.chars > this.limits.maxChars) {
      this.partial.delete(chunk.message_id);
      throw new AppError(
        'FRAME_TOO_LARGE',
        `Chunked message ${chunk.message_id} exceeds ${this.limits.maxChars} characters.`,
      );
    }
    message.pieces[chunk.index] = chunk.data;
    message.received += 1;
    if (message.received < chunk.count) return undefined;
    this.partial.delete(chunk.message_id);
    return message.pieces.join('');
  }

  get inFlight(): number {
    return this.partial.size;
  }

  private dropStale(now: number): void {
    for (const [id, message] of this.partial) {
      if (now - message.startedAt > this.limits.staleAfterMs) this.partial.delete(id);
    }
  }
}
