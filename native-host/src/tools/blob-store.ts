/**
 * Large payloads (screenshots as PNG, clipboard images) are kept by the daemon and handed out by
 * reference, so no single message carries more than `inlineLimit` bytes of base64. Implemented by
 * storage/image-store.ts (the one image store: in data.db, named by the SHA-256 of the bytes; what
 * no run holds is pruned an hour after its last use); read back with the `blobs.read` RPC method
 * in slices.
 */
export interface BlobStore {
  /** Largest payload (in base64 characters) returned inline. */
  readonly inlineLimit: number;
  /** Returns the base64 itself when small enough, else a reference `blob:<hash>` to it. */
  inlineOrReference(data: Buffer, mimeType: string): string;
  put(data: Buffer, mimeType: string): string;
  /** Bytes of a stored payload, for a reference or an id; NOT_FOUND when unknown or pruned. */
  get(reference: string): { data: Buffer; mimeType: string };
}
