import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, expect, it } from 'vitest';

import { FileBlobStore } from './blob-store-impl.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function store(limit: number): FileBlobStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-blobs-'));
  dirs.push(dir);
  return new FileBlobStore(path.join(dir, 'blobs'), limit);
}

it('returns small payloads inline and large ones by a reference that reads back the same bytes', () => {
  const blobs = store(8);
  expect(blobs.inlineOrReference(Buffer.from('abcdef'), 'image/png')).toBe(Buffer.from('abcdef').toString('base64'));
  const big = Buffer.from('0123456789abcdef');
  const reference = blobs.inlineOrReference(big, 'image/jpeg');
  expect(reference).toMatch(/^blob:[0-9a-f]{24}$/u);
  expect(blobs.get(reference)).toEqual({ data: big, mimeType: 'image/jpeg' });
});

it('says what is wrong with a malformed or unknown reference', () => {
  const blobs = store(8);
  expect(() => blobs.get('blob:../../etc/passwd')).toThrow(/not a payload reference/u);
  expect(() => blobs.get(`blob:${'a'.repeat(24)}`)).toThrow(/is gone/u);
});
