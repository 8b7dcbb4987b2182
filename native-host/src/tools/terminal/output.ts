/**
 * Captured output of one stream, capped: the first half of the cap and the last half are kept,
 * whatever passes in between is counted and dropped. Memory stays at the cap however much a
 * command prints (`yes` for two minutes is tens of gigabytes).
 */

/** Bytes kept per stream; decoded as UTF-8 they are never more characters than this. */
export const STREAM_CAP_BYTES = 100_000;

export interface CapturedText {
  text: string;
  truncated: boolean;
  /** Bytes the stream carried in all. */
  totalBytes: number;
}

export class OutputCollector {
  readonly headCap: number;
  readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(readonly cap: number = STREAM_CAP_BYTES) {
    this.headCap = Math.floor(cap / 2);
    this.tailCap = cap - this.headCap;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    // Copied: a slice would keep the whole (possibly 64 KiB) chunk alive for a few bytes.
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.tailCap) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  /** Records a stream whose middle was never read (a file read by its head and tail). */
  pushHeadAndTail(head: Buffer, tail: Buffer, totalBytes: number): void {
    this.push(head);
    const skipped = totalBytes - head.length - tail.length;
    if (skipped > 0) {
      this.total += skipped;
      // The kept tail must be the stream's end: whatever is already there came before the gap.
      this.tail = [];
      this.tailBytes = 0;
    }
    this.push(tail);
  }

  result(): CapturedText {
    const tail = Buffer.concat(this.tail);
    // Nothing was dropped until the total passes the cap (the tail keeps whole chunks, so it may
    // hold more than its share: that is cut below).
    const truncated = this.total > this.cap;
    if (!truncated) {
      return { text: Buffer.concat([...this.head, tail]).toString('utf8'), truncated: false, totalBytes: this.total };
    }
    const head = Buffer.concat(this.head);
    const kept = tail.subarray(Math.max(0, tail.length - this.tailCap));
    // A character cut at either edge is left out whole, and counted as omitted.
    const shownHead = head.subarray(0, completeUtf8Length(head));
    const shownTail = kept.subarray(leadingContinuationBytes(kept));
    const omitted = this.total - shownHead.length - shownTail.length;
    const notice =
      `\n[… ${omitted} bytes omitted: the output was ${this.total} bytes; the first ${shownHead.length} ` +
      `and the last ${shownTail.length} are shown. Redirect it to a file and read parts of it to see more …]\n`;
    return {
      text: shownHead.toString('utf8') + notice + shownTail.toString('utf8'),
      truncated: true,
      totalBytes: this.total,
    };
  }
}

/** Length of `bytes` without a multi-byte UTF-8 sequence cut off at its end. */
export function completeUtf8Length(bytes: Buffer): number {
  const end = bytes.length;
  // A sequence is at most 4 bytes: look back over at most 3 continuation bytes to its lead byte.
  for (let back = 1; back <= Math.min(4, end); back += 1) {
    const byte = bytes[end - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}

/** Continuation bytes at the start of `bytes` (the rest of a sequence cut off at the front). */
export function leadingContinuationBytes(bytes: Buffer): number {
  let count = 0;
  while (count < 3 && count < bytes.length && ((bytes[count] as number) & 0xc0) === 0x80) count += 1;
  return count;
}

/** Text of a captured file: a UTF-8 byte order mark (PowerShell 5.1 writes one) is dropped. */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
