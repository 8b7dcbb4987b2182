/**
 * A response body's text, read no further than `limit` bytes: what a model server sends is never
 * held whole without a bound. Past the limit, `tooLong` gives the error to throw; without it the
 * text is cut there (enough to read a page's title). The rest is not waited for.
 */
export async function readBody(response: Response, limit: number, tooLong?: () => Error): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= limit) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks).toString('utf8');
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (tooLong) throw tooLong();
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
