/**
 * Large payloads (screenshots as PNG, clipboard images) are kept by the daemon and handed out by
 * reference, so no single message carries more than `inlineLimit` bytes of base64. Implemented in
 * blob-store-impl.ts (files under the data directory, pruned by age); read back with the
 * `blobs.read` RPC method in slices.
 */
export interface BlobStore {
  /** Largest payload (in base64 characters) returned inline. */
  readonly inlineLimit: number;
  /** Returns the base64 itself when small enough, else a reference `blob:<id>` to it. */
  inlineOrReference(data: Buffer, mimeType: string): string;
  put(data: Buffer, mimeType: string): string;
  /** Bytes of a stored payload, for a reference or an id; NOT_FOUND when unknown or pruned. */
  get(reference: string): { data: Buffer; mimeType: string };
}
