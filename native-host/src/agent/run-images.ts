import { randomBytes } from 'node:crypto';

import type { Db } from '../storage/database.js';
import { imageInfo } from './image-info.js';
import type { ImageBlock, Message, TextBlock, ToolResultBlock } from './providers/types.js';

export const RUN_IMAGE_PREFIX = 'runimg:';

/** Recently used images in memory, so building each request does not read them back from disk. */
const CACHE_SIZE = 24;

/**
 * The images of runs' conversations, in SQLite. The loop state holds `runimg:<id>` references
 * (with the pixel size) instead of base64, so the checkpoint written after every step is a few
 * KiB rather than the three screenshots it shows; the images are resolved when a request is
 * built. The insert itself is not synced: the durable checkpoint that first names an image
 * syncs the write-ahead log, and with it the image.
 */
export class RunImageStore {
  private readonly cache = new Map<string, string>();

  constructor(private readonly db: Db) {}

  /** Stores a base64 image for a run and returns the block that refers to it. */
  put(runId: string, block: ImageBlock): ImageBlock {
    if (block.data.startsWith(RUN_IMAGE_PREFIX)) return block;
    const info = imageInfo(block.data, block.mediaType);
    const id = randomBytes(12).toString('hex');
    this.db
      .prepare('INSERT INTO run_images (id, run_id, media_type, data, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, runId, info.mediaType, Buffer.from(block.data, 'base64'), new Date().toISOString());
    this.remember(id, block.data);
    return {
      type: 'image',
      data: `${RUN_IMAGE_PREFIX}${id}`,
      mediaType: info.mediaType,
      ...(info.width !== undefined ? { width: info.width } : {}),
      ...(info.height !== undefined ? { height: info.height } : {}),
    };
  }

  /** Base64 of a referenced image; undefined when it is gone. */
  get(reference: string): string | undefined {
    const id = reference.slice(RUN_IMAGE_PREFIX.length);
    const cached = this.cache.get(id);
    if (cached !== undefined) return cached;
    const row = this.db.prepare('SELECT data FROM run_images WHERE id = ?').get(id) as { data: Buffer } | undefined;
    if (!row) return undefined;
    const base64 = row.data.toString('base64');
    this.remember(id, base64);
    return base64;
  }

  /** Deletes the run's images that `messages` no longer refer to. */
  retainOnly(runId: string, messages: readonly Message[]): void {
    const keep = new Set<string>();
    forEachImage(messages, (block) => {
      if (block.data.startsWith(RUN_IMAGE_PREFIX)) keep.add(block.data.slice(RUN_IMAGE_PREFIX.length));
    });
    const stored = this.db.prepare('SELECT id FROM run_images WHERE run_id = ?').pluck().all(runId) as string[];
    const drop = this.db.prepare('DELETE FROM run_images WHERE id = ?');
    for (const id of stored) {
      if (keep.has(id)) continue;
      drop.run(id);
      this.cache.delete(id);
    }
  }

  /** The messages with every reference replaced by the image, or by a line saying it is gone. */
  resolve(messages: readonly Message[]): Message[] {
    const resolveBlock = (block: TextBlock | ImageBlock): TextBlock | ImageBlock => {
      if (block.type !== 'image' || !block.data.startsWith(RUN_IMAGE_PREFIX)) return block;
      const data = this.get(block.data);
      if (data === undefined) return { type: 'text', text: '[an image that is no longer available]' };
      return { type: 'image', data, mediaType: block.mediaType };
    };
    return messages.map((message): Message => {
      if (message.role === 'assistant') return message;
      const content = message.content.map((block): TextBlock | ImageBlock | ToolResultBlock =>
        block.type === 'tool_result' ? { ...block, content: block.content.map(resolveBlock) } : resolveBlock(block),
      );
      return { ...message, content };
    });
  }

  private remember(id: string, base64: string): void {
    this.cache.delete(id);
    this.cache.set(id, base64);
    while (this.cache.size > CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}

function forEachImage(messages: readonly Message[], visit: (block: ImageBlock) => void): void {
  for (const message of messages) {
    if (message.role === 'assistant') continue;
    for (const block of message.content) {
      if (block.type === 'image') visit(block);
      else if (block.type === 'tool_result')
        for (const inner of block.content) if (inner.type === 'image') visit(inner);
    }
  }
}

/** Replaces the base64 images of a tool result or observation with stored references. */
export function internImages<B extends ToolResultBlock | TextBlock | ImageBlock>(
  block: B,
  store: (image: ImageBlock) => ImageBlock,
): B {
  if (block.type === 'image') return store(block) as B;
  if (block.type === 'tool_result') {
    return { ...block, content: block.content.map((inner) => (inner.type === 'image' ? store(inner) : inner)) };
  }
  return block;
}
