/**
 * What a person can see. Text that is in the page but hidden from the eye (zero-size, off-screen,
 * the colour of its background, transparent, aria-hidden) is a classic carrier of prompt
 * injection: it is flagged, never silently mixed with what the person sees.
 */
import { windowOf } from './dom.js';

type Rgba = [number, number, number, number];

/** What an element passes on to its descendants while the tree is walked. */
export interface Inherited {
  transparent: boolean;
  clipped: boolean;
  ariaHidden: boolean;
  /** The colour behind the element; undefined when an image or gradient makes it unknowable. */
  background: Rgba | undefined;
}

export const ROOT_CONTEXT: Inherited = {
  transparent: false,
  clipped: false,
  ariaHidden: false,
  background: [255, 255, 255, 1],
};

export function styleOf(element: Element): CSSStyleDeclaration {
  return windowOf(element).getComputedStyle(element);
}

/** Not rendered at all: nobody sees it, so it is left out rather than flagged. */
export function isNotRendered(element: Element, style: CSSStyleDeclaration): boolean {
  if (style.display === 'none') return true;
  // `content-visibility: hidden` skips rendering of the content, like display: none for readers.
  return style.getPropertyValue('content-visibility') === 'hidden' && element.localName !== 'body';
}

export function childContext(element: Element, style: CSSStyleDeclaration, parent: Inherited): Inherited {
  const opacity = Number(style.opacity);
  const transparent = parent.transparent || opacity === 0;
  const overflowHidden = style.overflow !== 'visible' && style.overflow !== '';
  const box = overflowHidden ? element.getBoundingClientRect() : undefined;
  const clipped =
    parent.clipped ||
    (box !== undefined && (box.width < 1 || box.height < 1)) ||
    /^rect\(0(px)? 0(px)? 0(px)? 0(px)?\)$/.test(style.clip.replace(/[\s,]+/g, ' ')) ||
    style.clipPath === 'inset(50%)' ||
    style.clipPath === 'inset(100%)';
  const ariaHidden = parent.ariaHidden || element.getAttribute('aria-hidden') === 'true';
  let background = parent.background;
  if (style.backgroundImage && style.backgroundImage !== 'none') background = undefined;
  else {
    const colour = parseColour(style.backgroundColor);
    if (colour && colour[3] >= 0.5) background = colour;
  }
  return { transparent, clipped, ariaHidden, background };
}

/**
 * Why a piece of text the page renders cannot be seen by a person, or undefined when it can.
 * `rect` is the text's own box (from a Range), so `text-indent: -9999px` tricks are caught too.
 */
export function hiddenReason(
  rect: DOMRect,
  style: CSSStyleDeclaration,
  context: Inherited,
  view: Window,
): string | undefined {
  if (context.ariaHidden) return 'aria-hidden';
  if (style.visibility !== 'visible') return undefined;
  if (context.transparent) return 'transparent';
  if (context.clipped) return 'clipped to nothing';
  if (parseFloat(style.fontSize) < 2) return 'tiny text';
  if (rect.width < 1 || rect.height < 1) return 'zero-size';
  const page = view.document.documentElement;
  const width = Math.max(page.scrollWidth, view.innerWidth);
  const height = Math.max(page.scrollHeight, view.innerHeight);
  const left = rect.left + view.scrollX;
  const top = rect.top + view.scrollY;
  if (left + rect.width <= 0 || top + rect.height <= 0 || left >= width || top >= height) return 'off-screen';
  const colour = parseColour(style.color);
  if (colour && colour[3] === 0) return 'transparent text';
  if (colour && context.background && contrast(colour, context.background) < 1.15) return 'same colour as background';
  return undefined;
}

function parseColour(value: string): Rgba | undefined {
  const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+%?))?\s*\)$/.exec(value);
  if (!match) return undefined;
  const alphaText = match[4];
  const alpha =
    alphaText === undefined ? 1 : alphaText.endsWith('%') ? parseFloat(alphaText) / 100 : parseFloat(alphaText);
  return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
}

function luminance([r, g, b]: Rgba): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

function contrast(a: Rgba, b: Rgba): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** An element a person could see and point at: rendered, with a box, not transparent. */
export function isVisibleElement(element: Element): boolean {
  const style = styleOf(element);
  if (style.display === 'none' || style.visibility !== 'visible' || Number(style.opacity) === 0) return false;
  const rect = element.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}
