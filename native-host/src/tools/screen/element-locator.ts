import type { Rect } from '../../platform/desktop.js';
import { readText, unionRect, type OcrEngine, type OcrLine } from './ocr.js';
import type { RgbPixels } from './pixels.js';

/** An element found in a picture, in the picture's pixels. */
export interface LocatedElement {
  /** What was found, in words (e.g. `text "Submit"`). */
  description: string;
  bounds: Rect;
  /** 0..1 */
  confidence: number;
}

export interface LocateResult {
  elements: LocatedElement[];
  /** When nothing matched: the closest things seen, for the message to the model. */
  closest: string[];
}

/**
 * Finds a UI element described in words in a picture. The seam for element_locate: today by
 * matching the description against OCR text (OcrElementLocator); a vision-model locator that
 * answers with boxes for any element (icons too) belongs to the agent runs.
 * TODO: a vision-model ElementLocator, used when a model with vision is configured.
 */
export interface ElementLocator {
  readonly kind: string;
  locate(description: string, picture: RgbPixels, signal?: AbortSignal): Promise<LocateResult>;
}

/** Matches the description's text against what OCR reads in the picture. */
export class OcrElementLocator implements ElementLocator {
  readonly kind = 'ocr';

  constructor(private readonly ocr: OcrEngine) {}

  async locate(description: string, picture: RgbPixels, signal?: AbortSignal): Promise<LocateResult> {
    return matchDescription(description, await readText(this.ocr, picture, 'auto', signal));
  }
}

/** A match is at least this similar (1 − edit distance / length) to the wanted text… */
const MIN_SIMILARITY = 0.75;
/** …and exact when the wanted text is this short (one wrong letter in "OK" is another word). */
const EXACT_UP_TO = 3;
const MAX_ELEMENTS = 5;

/**
 * Words of a description that name the kind of element or are filler, not its text: "the
 * Submit button" is looking for "Submit".
 */
const FILLER = new Set(
  (
    'the a an this that button btn link field input box textbox text label labelled labeled called named titled ' +
    'menu item icon tab checkbox check radio option entry says saying reads with which word words click on ' +
    'in of for to element control 按钮 链接 菜单 图标 输入框 文本 标签 选项'
  ).split(' '),
);

/** The text to look for: a quoted part of the description, else its words without filler. */
export function targetText(description: string): string {
  const quoted = /["“”'‘’「『]([^"“”'‘’」』]+)["“”'‘’」』]/u.exec(description);
  if (quoted?.[1]?.trim()) return quoted[1].trim();
  const words = description.trim().split(/\s+/u);
  const kept = words.filter((word) => !FILLER.has(word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')));
  // Chinese runs words together: drop a trailing element noun ("提交按钮" → "提交").
  const text = (kept.length > 0 ? kept : words).join(' ');
  return text.replace(/(按钮|链接|菜单|图标|输入框|选项)$/u, '') || text;
}

/** Lower case, compatibility forms folded, only letters and digits. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** 1 − edit distance / longer length (1 = equal). */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (!a || !b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return 1 - previous[b.length]! / Math.max(a.length, b.length);
}

/** Letter shapes OCR mistakes for one another (folded the same way on both sides). */
const CONFUSABLE: Array<[RegExp, string]> = [
  [/rn/gu, 'm'],
  [/vv/gu, 'w'],
  [/cl/gu, 'd'],
  [/[0]/gu, 'o'],
  [/[1|!]/gu, 'l'],
  [/[5]/gu, 's'],
];

function foldConfusable(text: string): string {
  return CONFUSABLE.reduce((folded, [pattern, replacement]) => folded.replace(pattern, replacement), text);
}

/** Similarity, also after folding look-alike letters ("Subrnit" is "Submit" misread), a little less sure then. */
function textScore(wanted: string, seen: string): number {
  const direct = similarity(wanted, seen);
  if (direct === 1) return 1;
  return Math.max(direct, 0.95 * similarity(foldConfusable(wanted), foldConfusable(seen)));
}

interface Candidate {
  text: string;
  bounds: Rect;
  similarity: number;
  ocrConfidence: number;
}

/**
 * The OCR lines' word runs that match the description's text: case-insensitive, ignoring
 * punctuation and spaces, tolerating small OCR errors. One best run per line; best first.
 */
export function matchDescription(description: string, lines: OcrLine[]): LocateResult {
  const wanted = normalizeText(targetText(description));
  const best: Candidate[] = [];
  for (const line of lines) {
    let lineBest: Candidate | undefined;
    const words = line.words;
    for (let start = 0; start < words.length; start++) {
      for (let end = start + 1; end <= words.length; end++) {
        const run = words.slice(start, end);
        const text = normalizeText(run.map((word) => word.text).join(''));
        // Runs much longer than the wanted text cannot match; stop growing this one.
        if (text.length > wanted.length * 2 + 2) break;
        const score = textScore(wanted, text);
        if (!lineBest || score > lineBest.similarity) {
          lineBest = {
            text: run.map((word) => word.text).join(' '),
            bounds: unionRect(run.map((word) => word.bounds)),
            similarity: score,
            ocrConfidence: run.reduce((sum, word) => sum + word.confidence, 0) / run.length,
          };
        }
      }
    }
    if (lineBest) best.push(lineBest);
  }
  best.sort((a, b) => b.similarity - a.similarity || b.ocrConfidence - a.ocrConfidence);
  const needed = wanted.length <= EXACT_UP_TO ? 1 : MIN_SIMILARITY;
  const elements = best
    .filter((candidate) => wanted.length > 0 && candidate.similarity >= needed)
    .slice(0, MAX_ELEMENTS)
    .map((candidate) => ({
      description: `text "${candidate.text}"`,
      bounds: candidate.bounds,
      confidence: round(candidate.similarity * candidate.ocrConfidence),
    }));
  const closest = best
    .filter((candidate) => candidate.similarity > 0.3)
    .slice(0, MAX_ELEMENTS)
    .map((candidate) => `"${candidate.text}" (${Math.round(candidate.similarity * 100)}% similar)`);
  return { elements, closest };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
