import { loadSharp } from '../../tools/screen/encode.js';

/**
 * Long edge ≤ 1568 px and ≤ ~1.15 megapixels (the most a vision model takes without scaling the
 * image down itself), JPEG quality 80 — as the extension does.
 */
const MAX_EDGE = 1568;
const MAX_PIXELS = 1_150_000;

export async function scaleScreenshot(png: Buffer): Promise<{ image: string; width: number; height: number }> {
  const sharp = await loadSharp();
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  const factor = Math.min(1, MAX_EDGE / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  const out = { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)) };
  const jpeg = await sharp(png)
    .resize(out.width, out.height, { fit: 'fill', kernel: 'linear' })
    .jpeg({ quality: 80 })
    .toBuffer();
  return { image: jpeg.toString('base64'), ...out };
}
