import fs from 'node:fs';
import net from 'node:net';

import { OutputCollector } from './output.js';

/** What follows the end marker on stdout: `<status>;<$PWD>\0`. */
export interface Trailer {
  status: number;
  cwd: string;
}

/**
 * Reads one stream of one call from a FIFO until the call's end marker, keeping the output in an
 * OutputCollector. After the marker, whatever still arrives comes from background jobs the
 * command left holding the FIFO: it is read and dropped until they close it, so they never block
 * on a full pipe (or die of SIGPIPE) and never leak into a later call.
 *
 * The FIFO is opened non-blocking before the shell opens its end; Linux reports neither data
 * nor hang-up on it until a writer has come, so the read does not end early.
 */
export class FifoReader {
  readonly collector: OutputCollector;
  /** Resolves when the marker (and, with a trailer, the trailer) has been read. */
  readonly marked: Promise<Trailer | undefined>;
  /** Resolves when every writer has closed the FIFO. */
  readonly ended: Promise<void>;
  private readonly socket: net.Socket;
  private readonly marker: Buffer;
  private pending: Buffer = Buffer.alloc(0);
  private markerFound = false;
  private trailerBytes: Buffer | undefined;
  private isEnded = false;
  private resolveMarked!: (trailer: Trailer | undefined) => void;

  constructor(
    path: string,
    marker: string,
    private readonly withTrailer: boolean,
    cap?: number,
  ) {
    this.collector = new OutputCollector(cap);
    this.marker = Buffer.from(marker, 'utf8');
    this.marked = new Promise((resolve) => {
      this.resolveMarked = resolve;
    });
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    this.socket = new net.Socket({ fd, readable: true, writable: false });
    this.ended = new Promise((resolve) => {
      const finish = () => {
        if (this.isEnded) return;
        this.isEnded = true;
        resolve();
      };
      this.socket.once('end', finish);
      this.socket.once('close', finish);
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => {
      // A read error ends the stream like end-of-file does ('close' follows); what was read stays.
      this.socket.destroy();
    });
  }

  get hasEnded(): boolean {
    return this.isEnded;
  }

  get hasMarker(): boolean {
    return this.markerFound;
  }

  /** Output held back because it might have been the start of the marker, as output. */
  flush(): void {
    if (this.markerFound) return;
    this.collector.push(this.pending);
    this.pending = Buffer.alloc(0);
  }

  /** Stops reading now (the session is going away). */
  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.markerFound) {
      if (this.trailerBytes !== undefined) this.readTrailer(chunk);
      return;
    }
    const buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const at = buffer.indexOf(this.marker);
    if (at >= 0) {
      this.collector.push(buffer.subarray(0, at));
      this.pending = Buffer.alloc(0);
      this.markerFound = true;
      const rest = buffer.subarray(at + this.marker.length);
      if (this.withTrailer) {
        this.trailerBytes = Buffer.alloc(0);
        this.readTrailer(rest);
      } else {
        this.resolveMarked(undefined);
      }
      return;
    }
    // Keep what could be the marker's beginning until the next chunk tells.
    const keep = Math.min(buffer.length, this.marker.length - 1);
    this.collector.push(buffer.subarray(0, buffer.length - keep));
    this.pending = Buffer.from(buffer.subarray(buffer.length - keep));
  }

  private readTrailer(chunk: Buffer): void {
    const bytes = Buffer.concat([this.trailerBytes as Buffer, chunk]);
    const end = bytes.indexOf(0);
    if (end < 0) {
      this.trailerBytes = bytes;
      return;
    }
    this.trailerBytes = undefined;
    const text = bytes.subarray(0, end).toString('utf8');
    const separator = text.indexOf(';');
    this.resolveMarked({ status: Number(text.slice(0, separator)), cwd: text.slice(separator + 1) });
  }
}
