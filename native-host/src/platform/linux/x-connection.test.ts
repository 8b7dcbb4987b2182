import { describe, expect, it } from 'vitest';

import { buttonMask, findCookie } from './x-connection.js';

/** One Xauthority record: family, address, display number, auth name, auth data. */
function record(family: number, address: string, number: string, name: string, data: Buffer): Buffer {
  const field = (value: Buffer) => Buffer.concat([Buffer.from([value.length >> 8, value.length & 0xff]), value]);
  return Buffer.concat([
    Buffer.from([family >> 8, family & 0xff]),
    field(Buffer.from(address)),
    field(Buffer.from(number)),
    field(Buffer.from(name)),
    field(data),
  ]);
}

describe('Xauthority cookies', () => {
  const cookie = Buffer.from('0123456789abcdef');
  const other = Buffer.from('fedcba9876543210');
  const file = Buffer.concat([
    record(256, 'otherhost', '0', 'MIT-MAGIC-COOKIE-1', other),
    record(256, 'myhost', '1', 'MIT-MAGIC-COOKIE-1', other),
    record(256, 'myhost', '0', 'MIT-MAGIC-COOKIE-1', cookie),
  ]);

  it('picks the local entry for this host and display', () => {
    expect(findCookie(file, '0', 'myhost')).toEqual(cookie);
    expect(findCookie(file, '1', 'myhost')).toEqual(other);
    expect(findCookie(file, '7', 'myhost')).toBeUndefined();
  });

  it('accepts wildcard entries and stops at a truncated file', () => {
    const wild = record(0xffff, '', '3', 'MIT-MAGIC-COOKIE-1', cookie);
    expect(findCookie(wild, '3', 'anything')).toEqual(cookie);
    expect(findCookie(wild.subarray(0, 10), '3', 'anything')).toBeUndefined();
  });
});

it('maps buttons to QueryPointer mask bits (none for the horizontal wheel)', () => {
  expect([1, 2, 3, 4, 5].map(buttonMask)).toEqual([0x100, 0x200, 0x400, 0x800, 0x1000]);
  expect(buttonMask(6)).toBe(0);
  expect(buttonMask(7)).toBe(0);
});
