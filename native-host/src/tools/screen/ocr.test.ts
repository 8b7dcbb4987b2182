import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import {
  crop,
  joinWords,
  languageFile,
  linkLanguageData,
  OcrEngine,
  parseLanguage,
  parseTsv,
  readText,
} from './ocr.js';

describe('parseLanguage', () => {
  it('accepts the supported sets in either order and common aliases', () => {
    expect(parseLanguage('auto')).toBe('auto');
    expect(parseLanguage('eng')).toBe('eng');
    expect(parseLanguage('zh')).toBe('chi_sim');
    expect(parseLanguage('chi_sim+eng')).toBe('eng+chi_sim');
    expect(parseLanguage('English, Chinese')).toBe('eng+chi_sim');
  });

  it('refuses others, listing what is available', () => {
    expect(() => parseLanguage('fra')).toThrow(/"auto", "eng" .*"chi_sim".*"eng\+chi_sim"/u);
  });
});

describe('parseTsv', () => {
  it('groups words into lines with union bounds and 0..1 confidences', () => {
    const tsv = [
      '1\t1\t0\t0\t0\t0\t0\t0\t640\t480\t-1\t',
      '4\t1\t1\t1\t1\t0\t20\t10\t120\t14\t-1\t',
      '5\t1\t1\t1\t1\t1\t20\t10\t40\t14\t90\tHello',
      '5\t1\t1\t1\t1\t2\t70\t11\t70\t13\t80\tworld',
      '5\t1\t2\t1\t1\t1\t300\t200\t20\t20\t50\t你',
      '5\t1\t2\t1\t1\t2\t322\t200\t20\t20\t70\t好',
      '5\t1\t2\t1\t1\t3\t350\t200\t20\t20\t70\t ',
    ].join('\n');
    const lines = parseTsv(tsv);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ text: 'Hello world', bounds: { x: 20, y: 10, width: 120, height: 14 } });
    expect(lines[0]!.confidence).toBeCloseTo(0.85);
    expect(lines[1]).toMatchObject({ text: '你好', bounds: { x: 300, y: 200, width: 42, height: 20 } });
  });

  it('joins CJK characters without spaces, other words with them', () => {
    expect(joinWords(['你', '好', '，', '世界', 'OK', 'then'])).toBe('你好，世界 OK then');
  });

  it('crops grey images', () => {
    const image = { width: 4, height: 3, data: Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) };
    expect([...crop(image, { x: 1, y: 1, width: 2, height: 2 }).data]).toEqual([5, 6, 9, 10]);
  });
});

describe('language data', () => {
  it("links the npm packages' models into one directory, again idempotently", () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-tessdata-'));
    linkLanguageData(directory, ['eng', 'chi_sim']);
    linkLanguageData(directory, ['eng']);
    expect(fs.readdirSync(directory).sort()).toEqual(['chi_sim.traineddata.gz', 'eng.traineddata.gz']);
    expect(fs.realpathSync(path.join(directory, 'eng.traineddata.gz'))).toBe(fs.realpathSync(languageFile('eng')));
    fs.rmSync(directory, { recursive: true, force: true });
  });
});

describe('OcrEngine (real Tesseract, offline)', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-ocr-'));
  const engine = new OcrEngine({
    languageDir: path.join(directory, 'tessdata'),
    log: createLogger({ component: 'test', level: 'error' }),
    idleMs: 300,
  });
  afterAll(async () => {
    await engine.dispose();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  /** Black text on white, rendered by sharp (Pango), as RGB pixels. */
  async function rendered(markup: string, font: string) {
    const { data, info } = await sharp({ text: { text: markup, font, dpi: 96, rgba: true } })
      .flatten({ background: '#ffffff' })
      .extend({ top: 20, bottom: 20, left: 20, right: 20, background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, channels: info.channels as 3 | 4, data };
  }

  it('reads English and, in auto, re-reads a Chinese line with Chinese', async () => {
    const pixels = await rendered('Invoice total 1234\n\n你好世界', 'DejaVu Sans, Droid Sans Fallback 28');
    const lines = await readText(engine, pixels, 'auto');
    const text = lines.map((line) => line.text).join('\n');
    expect(text).toContain('Invoice total 1234');
    expect(text).toContain('你好世界');
    const invoice = lines.find((line) => line.text.includes('Invoice'))!;
    expect(invoice.confidence).toBeGreaterThan(0.8);
    expect(invoice.bounds.x).toBeGreaterThanOrEqual(15);
    expect(invoice.bounds.y).toBeGreaterThanOrEqual(15);
    expect(invoice.bounds.x + invoice.bounds.width).toBeLessThanOrEqual(pixels.width);
  }, 60_000);

  it('ends workers left idle, and starts one again when needed', async () => {
    const workers = (engine as unknown as { workers: Map<string, unknown> }).workers;
    const pixels = await rendered('Second reading', 'DejaVu Sans 28');
    expect((await readText(engine, pixels, 'eng')).map((line) => line.text)).toEqual(['Second reading']);
    expect(workers.size).toBeGreaterThan(0);
    const deadline = Date.now() + 5000;
    while (workers.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(workers.size).toBe(0);
    expect((await readText(engine, pixels, 'eng')).map((line) => line.text)).toEqual(['Second reading']);
  }, 60_000);
});
