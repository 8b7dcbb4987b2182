import { spawnSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { currentPlatform } from './current-platform.js';
import { posixQuote } from './posix-quote.js';

describe('posixQuote', () => {
  it("writes a single quote as '\\''", () => {
    expect(posixQuote("it's")).toBe("'it'\\''s'");
  });

  it.skipIf(currentPlatform() === 'windows')('gives sh back exactly the text, whatever it holds', () => {
    for (const value of ['', "''", 'a b', '~/x', '$HOME `id` $(id) "q" \\ *', "a'b", 'line\nbreak', '!x', ' -n']) {
      const result = spawnSync('/bin/sh', ['-c', `printf '%s' ${posixQuote(value)}`], { encoding: 'utf8' });
      expect(result.stdout, JSON.stringify(value)).toBe(value);
    }
  });
});
