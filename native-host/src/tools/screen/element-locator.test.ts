import { describe, expect, it } from 'vitest';

import { matchDescription, normalizeText, similarity, targetText } from './element-locator.js';
import type { OcrLine, OcrWord } from './ocr.js';

function word(text: string, x: number, y: number, confidence = 0.9): OcrWord {
  return { text, bounds: { x, y, width: text.length * 8, height: 12 }, confidence };
}

function line(...words: OcrWord[]): OcrLine {
  return {
    text: words.map((entry) => entry.text).join(' '),
    bounds: words[0]!.bounds,
    confidence: 0.9,
    words,
  };
}

describe('targetText', () => {
  it('drops the kind of element and filler words', () => {
    expect(targetText('the Submit button')).toBe('Submit');
    expect(targetText('Sign in link')).toBe('Sign');
    expect(targetText('a button labelled "Sign in"')).toBe('Sign in');
    expect(targetText('the “Save as…” menu item')).toBe('Save as…');
    expect(targetText('提交按钮')).toBe('提交');
    expect(targetText('button')).toBe('button');
  });

  it('compares text case- and punctuation-insensitively, tolerating OCR slips', () => {
    expect(normalizeText('Save As…')).toBe('saveas');
    expect(similarity('submit', 'submit')).toBe(1);
    expect(similarity('submit', 'subrnit')).toBeGreaterThan(0.7);
    expect(similarity('submit', 'cancel')).toBeLessThan(0.3);
  });
});

describe('matchDescription', () => {
  const lines = [
    line(word('File', 10, 10), word('Edit', 50, 10), word('View', 90, 10)),
    line(word('Please', 10, 100), word('sign', 70, 100), word('in', 110, 100), word('below', 130, 100)),
    line(word('Subrnit', 400, 300, 0.8)),
    line(word('Cancel', 600, 300)),
  ];

  it('finds a word with an OCR slip, with its bounds and a confidence from both scores', () => {
    const result = matchDescription('the Submit button', lines);
    expect(result.elements).toHaveLength(1);
    expect(result.elements[0]).toMatchObject({
      description: 'text "Subrnit"',
      bounds: { x: 400, y: 300, width: 56, height: 12 },
    });
    expect(result.elements[0]!.confidence).toBeGreaterThan(0.5);
    expect(result.elements[0]!.confidence).toBeLessThan(0.8);
  });

  it('finds a run of words inside a longer line, bounds spanning the run', () => {
    const result = matchDescription('"sign in"', lines);
    expect(result.elements[0]).toMatchObject({
      description: 'text "sign in"',
      bounds: { x: 70, y: 100, width: 56, height: 12 },
    });
  });

  it('finds nothing for text that is not there, and names the closest', () => {
    const result = matchDescription('the Delete button', lines);
    expect(result.elements).toEqual([]);
    expect(result.closest.join(' ')).toMatch(/"(Edit|Please|below)"/u);
  });

  it('requires short words to match exactly', () => {
    expect(matchDescription('OK', [line(word('OR', 5, 5))]).elements).toEqual([]);
    expect(matchDescription('OK', [line(word('ok', 5, 5))]).elements).toHaveLength(1);
  });
});
