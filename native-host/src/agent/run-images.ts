import { isImageReference, type ImageStore } from '../storage/image-store.js';
import { imageInfo } from './image-info.js';
import type { ImageBlock, Message, TextBlock, ToolResultBlock } from './providers/types.js';

/** References of the run_images table before migration 13; one not migrated is shown as gone. */
const LEGACY_RUN_IMAGE_PREFIX = 'runimg:';

/** Recently used images in memory, so building each request does not read them back from disk. */
const CACHE_SIZE = 24;

/** The holder a run's images are held by (migration 13's trigger releases it when the run is deleted). */
export function runHolder(runId: string): string {
  return `run:${runId}`;
}

/**
 * The images of runs, in the one image store (storage/image-store.ts), held by the run for as
 * long as it exists: those its conversation shows and those its step records name. The loop
 * state holds `blob:<hash>` references (with the pixel size) instead of base64, so the
 * checkpoint written after every step is a few KiB rather than the three screenshots it shows;
 * the images are resolved when a request is built. A screenshot the step record names and the
 * conversation shows is the same bytes, so the same row and the same reference.
 */
export class RunImages {
  private readonly cache = new Map<string, string>();

  constructor(private readonly store: ImageStore) {}

  /** Stores a base64 image for a run and returns the block that refers to it. */
  put(runId: string, block: ImageBlock): ImageBlock {
    if (isImageReference(block.data)) {
      this.store.hold(runHolder(runId), block.data);
      return block;
    }
    const info = imageInfo(block.data, block.mediaType);
    const reference = this.store.put(Buffer.from(block.data, 'base64'), info.mediaType, runHolder(runId));
    this.remember(reference, block.data);
    return {
      type: 'image',
      data: reference,
      mediaType: info.mediaType,
      ...(info.width !== undefined ? { width: info.width } : {}),
      ...(info.height !== undefined ? { height: info.height } : {}),
    };
  }

  /**
   * Holds for the run every image `value` names (a step's result, before it is written), so the
   * record never points at a pruned payload. A reference already gone stays as it is.
   */
  holdReferences(runId: string, value: unknown): void {
    const holder = runHolder(runId);
    const visit = (inner: unknown): void => {
      if (typeof inner === 'string') {
        if (isImageReference(inner)) this.store.hold(holder, inner);
      } else if (Array.isArray(inner)) {
        inner.forEach(visit);
      } else if (typeof inner === 'object' && inner !== null) {
        Object.values(inner).forEach(visit);
      }
    };
    visit(value);
  }

  /** Base64 of a referenced image; undefined when it is gone. */
  get(reference: string): string | undefined {
    const cached = this.cache.get(reference);
    if (cached !== undefined) return cached;
    if (!isImageReference(reference)) return undefined;
    let base64: string;
    try {
      base64 = this.store.get(reference).data.toString('base64');
    } catch {
      return undefined;
    }
    this.remember(reference, base64);
    return base64;
  }

  /** The messages with every reference replaced by the image, or by a line saying it is gone. */
  resolve(messages: readonly Message[]): Message[] {
    const resolveBlock = (block: TextBlock | ImageBlock): TextBlock | ImageBlock => {
      if (block.type !== 'image' || !isReference(block.data)) return block;
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

  private remember(reference: string, base64: string): void {
    this.cache.delete(reference);
    this.cache.set(reference, base64);
    while (this.cache.size > CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }
}

/** An image block's data that names a stored image rather than carrying it (never base64, which has no colon). */
function isReference(data: string): boolean {
  return data.startsWith('blob:') || data.startsWith(LEGACY_RUN_IMAGE_PREFIX);
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
