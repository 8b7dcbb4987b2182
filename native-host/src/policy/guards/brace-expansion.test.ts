import { describe, expect, it } from 'vitest';

import { expandBraces, MAX_BRACE_EXPANSIONS } from './brace-expansion.js';

describe('expandBraces: lists', () => {
  it.each([
    ['a{b,c}d', ['abd', 'acd']],
    ['{a,b}{1,2}', ['a1', 'a2', 'b1', 'b2']],
    ['{a,b}{c,d}{e,f}', ['ace', 'acf', 'ade', 'adf', 'bce', 'bcf', 'bde', 'bdf']],
    ['{a,}', ['a', '']],
    ['{,a}', ['', 'a']],
    ['{,}', ['', '']],
    ['{a,../x}/y', ['a/y', '../x/y']],
    ['~/{.ssh,.gnupg}/*', ['~/.ssh/*', '~/.gnupg/*']],
  ])('expands %s in order, left to right', (input, expected) => {
    expect(expandBraces(input)).toEqual(expected);
  });

  it('leaves a path without braces as it is', () => {
    expect(expandBraces('/home/me/file.txt')).toEqual(['/home/me/file.txt']);
    expect(expandBraces('')).toEqual(['']);
  });
});

describe('expandBraces: nested braces', () => {
  it.each([
    ['{a,{b,c}}', ['a', 'b', 'c']],
    ['a{b,{c,d}e}f', ['abf', 'acef', 'adef']],
    ['{a,b{1,2}}', ['a', 'b1', 'b2']],
    ['{{a,b},{c,d}}x', ['ax', 'bx', 'cx', 'dx']],
    // The outer pair has no comma, so it stays; the inner one expands (as in bash).
    ['{{a,b}}', ['{a}', '{b}']],
    ['{x{a,b}}', ['{xa}', '{xb}']],
  ])('expands %s', (input, expected) => {
    expect(expandBraces(input)).toEqual(expected);
  });
});

describe('expandBraces: ranges', () => {
  it.each([
    ['x{1..3}', ['x1', 'x2', 'x3']],
    ['x{3..1}', ['x3', 'x2', 'x1']],
    ['{-2..2}', ['-2', '-1', '0', '1', '2']],
    ['x{0..10..5}', ['x0', 'x5', 'x10']],
    ['{1..10..3}', ['1', '4', '7', '10']],
    ['{10..1..3}', ['10', '7', '4', '1']],
    // The sign of the step does not matter, and a step of 0 counts as 1.
    ['{1..3..-1}', ['1', '2', '3']],
    ['{1..3..0}', ['1', '2', '3']],
    ['x{a..c}', ['xa', 'xb', 'xc']],
    ['{c..a}', ['c', 'b', 'a']],
    ['{A..C}', ['A', 'B', 'C']],
    ['{a,b}{1..0}', ['a1', 'a0', 'b1', 'b0']],
  ])('expands %s', (input, expected) => {
    expect(expandBraces(input)).toEqual(expected);
  });

  it.each(['{1..a}', '{a..c..2}', '{aa..c}', '{1..}', '{..3}', '{1...3}'])(
    'leaves %s as it is: not a range bash expands',
    (input) => {
      expect(expandBraces(input)).toEqual([input]);
    },
  );
});

describe('expandBraces: what is not an expansion', () => {
  it.each([
    // A variable, and a brace escaped with a backslash.
    ['${HOME}/x', ['${HOME}/x']],
    ['${a,b}', ['${a,b}']],
    ['\\{a,b}', ['\\{a,b}']],
    ['\\{a,b\\}', ['\\{a,b\\}']],
    // No comma and no range, unclosed, or closed only by an escaped brace.
    ['{a}', ['{a}']],
    ['{}', ['{}']],
    ['x{}y', ['x{}y']],
    ['{a,b', ['{a,b']],
    ['{a,b\\}', ['{a,b\\}']],
  ])('leaves %s as it is', (input, expected) => {
    expect(expandBraces(input)).toEqual(expected);
  });

  it('expands a brace after a `$` that is not its own', () => {
    expect(expandBraces('$x{a,b}')).toEqual(['$xa', '$xb']);
  });

  it('keeps an escaped comma inside its alternative', () => {
    expect(expandBraces('{a\\,b,c}')).toEqual(['a\\,b', 'c']);
  });

  it('expands a later brace when an earlier `}` has no opening one', () => {
    expect(expandBraces('a}b{c,d}')).toEqual(['a}bc', 'a}bd']);
  });
});

describe('expandBraces: the size limit', () => {
  it('allows 256 paths by default', () => {
    expect(MAX_BRACE_EXPANSIONS).toBe(256);
  });

  it('gives up on huge expansions instead of building them', () => {
    expect(expandBraces('{1..100000000}')).toBeUndefined();
    expect(expandBraces('{a,b}'.repeat(9))).toBeUndefined();
    expect(expandBraces('{a,b}'.repeat(8))).toHaveLength(256);
  });

  it('counts a range exactly at the limit', () => {
    expect(expandBraces('{1..256}')).toHaveLength(256);
    expect(expandBraces('{0..256}')).toBeUndefined();
    expect(expandBraces('{0..1000..4}')).toHaveLength(251);
    expect(expandBraces('{0..1024..4}')).toBeUndefined();
  });

  it('takes another limit', () => {
    expect(expandBraces('{1..5}', 5)).toEqual(['1', '2', '3', '4', '5']);
    expect(expandBraces('{1..5}', 4)).toBeUndefined();
    expect(expandBraces('{a,b}{c,d}', 4)).toEqual(['ac', 'ad', 'bc', 'bd']);
    expect(expandBraces('{a,b}{c,d}', 3)).toBeUndefined();
    expect(expandBraces('{a,b,c}', 2)).toBeUndefined();
  });

  it('gives up when a range inside a list is too big', () => {
    expect(expandBraces('{a,{1..1000}}')).toBeUndefined();
    expect(expandBraces('x{1..200}{a,b}')).toBeUndefined();
  });
});
