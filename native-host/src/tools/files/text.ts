/** Bytes looked at to tell text from binary (as git and grep do, the start of the file). */
export const SNIFF_BYTES = 8192;

const SIGNATURES: { bytes: number[]; offset?: number; type: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], type: 'PNG image' },
  { bytes: [0xff, 0xd8, 0xff], type: 'JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], type: 'GIF image' },
  { bytes: [0x52, 0x49, 0x46, 0x46], type: 'RIFF media (WebP, WAV or AVI)' },
  { bytes: [0x25, 0x50, 0x44, 0x46], type: 'PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], type: 'ZIP archive (or an Office document, jar, apk)' },
  { bytes: [0x1f, 0x8b], type: 'gzip archive' },
  { bytes: [0x42, 0x5a, 0x68], type: 'bzip2 archive' },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], type: 'xz archive' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], type: 'zstd archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], type: '7-Zip archive' },
  { bytes: [0x75, 0x73, 0x74, 0x61, 0x72], offset: 257, type: 'tar archive' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], type: 'ELF executable or library' },
  { bytes: [0x4d, 0x5a], type: 'Windows executable' },
  { bytes: [0xcf, 0xfa, 0xed, 0xfe], type: 'Mach-O executable' },
  { bytes: [0xca, 0xfe, 0xba, 0xbe], type: 'Mach-O universal binary or Java class' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], type: 'WebAssembly module' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], type: 'SQLite database' },
  { bytes: [0x49, 0x44, 0x33], type: 'MP3 audio' },
  { bytes: [0x4f, 0x67, 0x67, 0x53], type: 'Ogg media' },
  { bytes: [0x66, 0x74, 0x79, 0x70], offset: 4, type: 'MP4/QuickTime media' },
  { bytes: [0x1a, 0x45, 0xdf, 0xa3], type: 'Matroska/WebM video' },
  { bytes: [0x77, 0x4f, 0x46, 0x46], type: 'WOFF font' },
];

/** A guess at what a binary file is, from its first bytes. */
export function guessBinaryType(head: Buffer): string {
  for (const { bytes, offset = 0, type } of SIGNATURES) {
    if (head.length >= offset + bytes.length && bytes.every((byte, index) => head[offset + index] === byte)) {
      return type;
    }
  }
  return 'binary data of an unknown type';
}

export type Encoding = 'utf8' | 'utf16le' | 'utf16be';

/** How the start of a file decodes: text (and in which encoding) or binary. */
export function sniff(head: Buffer, complete: boolean): { binary: false; encoding: Encoding } | { binary: true } {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { binary: false, encoding: 'utf16le' };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { binary: false, encoding: 'utf16be' };
  if (head.includes(0)) return { binary: true };
  return validUtf8(head, complete) ? { binary: false, encoding: 'utf8' } : { binary: true };
}

/**
 * Whether `bytes` is UTF-8. A sequence cut at the end of a sample that is not the whole file is
 * not held against it (the 8 KiB window may end inside a character).
 */
export function validUtf8(bytes: Buffer, complete: boolean): boolean {
  let end = bytes.length;
  if (!complete) {
    // Back up over an incomplete trailing sequence: at most 3 continuation bytes and a lead.
    let index = end - 1;
    let continuation = 0;
    while (index >= 0 && continuation < 3 && ((bytes[index] as number) & 0xc0) === 0x80) {
      index -= 1;
      continuation += 1;
    }
    if (index >= 0) {
      const lead = bytes[index] as number;
      const needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
      if (needed > continuation) end = index;
    }
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

export function decode(bytes: Buffer, encoding: Encoding): string {
  if (encoding === 'utf8') return bytes.toString('utf8');
  const body = bytes.subarray(2);
  if (encoding === 'utf16le') return body.toString('utf16le');
  // Node has no UTF-16BE decoder; swap each pair.
  const swapped = Buffer.from(body.subarray(0, body.length - (body.length % 2)));
  swapped.swap16();
  return swapped.toString('utf16le');
}

export function encode(text: string, encoding: Encoding): Buffer {
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  const body = Buffer.from(text, 'utf16le');
  if (encoding === 'utf16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), body]);
  body.swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
}

/** Lines of a text (the last line needs no newline; a final newline does not start another line). */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The 1-based line a character offset is on. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** Bytes as "1.5 MB" for messages. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]} (${bytes} bytes)`;
}
