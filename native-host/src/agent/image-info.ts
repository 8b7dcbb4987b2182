/**
 * What the context manager needs to know about an image it holds as base64: its media type (from
 * the magic bytes, since tools report formats inconsistently) and its size in pixels (from the PNG
 * IHDR chunk or the JPEG SOF marker), for token estimates and "no longer shown" placeholders.
 */

export interface ImageInfo {
  mediaType: string;
  width?: number;
  height?: number;
}

/** Only the first bytes are decoded: a JPEG's SOF marker is normally within the first few KiB. */
const HEADER_BASE64_CHARS = 65_536;

export function imageInfo(base64: string, fallbackMediaType = 'image/png'): ImageInfo {
  const bytes = Buffer.from(base64.slice(0, HEADER_BASE64_CHARS - (HEADER_BASE64_CHARS % 4)), 'base64');
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { mediaType: 'image/png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { mediaType: 'image/jpeg', ...jpegSize(bytes) };
  }
  if (bytes.toString('latin1', 0, 4) === 'GIF8') return { mediaType: 'image/gif' };
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') {
    return { mediaType: 'image/webp' };
  }
  return { mediaType: fallbackMediaType };
}

function jpegSize(bytes: Buffer): { width?: number; height?: number } {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return {};
    const marker = bytes[offset + 1] ?? 0;
    // Fill bytes and markers without a length (RSTn, TEM) carry no segment.
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    // SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC) hold the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return {};
}
