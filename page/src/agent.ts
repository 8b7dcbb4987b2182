/**
 * The page script's one entry point: a request in, a reply out, always naming the document. It
 * touches only the DOM — no extension or Node APIs — so the extension (chrome.scripting) and the
 * daemon (an isolated world in headless Chromium) inject the very same bundle.
 */
import { PAGE_AGENT_VERSION, type MetricsValue, type PageReply, type PageRequest } from '@nextai/shared/browser';

import { extract } from './extract.js';
import { act, inspect } from './interact.js';
import { settle } from './settle.js';
import { takeSnapshot } from './snapshot.js';
import { PageFailure, PageState } from './state.js';
import { styleOf } from './visibility.js';

export interface PageAgent {
  version: number;
  handle(request: PageRequest): Promise<PageReply>;
}

export function createPageAgent(view: Window): PageAgent {
  const state = new PageState();
  const hiddenFixed: { element: HTMLElement; visibility: string }[] = [];

  const run = async (request: PageRequest): Promise<unknown> => {
    const document = view.document;
    switch (request.op) {
      case 'snapshot':
        return takeSnapshot(state, document, { maxChars: request.max_chars, cursor: request.cursor });
      case 'act':
        return act(state, document, request);
      case 'inspect':
        return inspect(state, document, request);
      case 'settle':
        return settle(document, request.timeout_ms, request.quiet_ms);
      case 'extract':
        return extract(state, document, request);
      case 'metrics': {
        const root = document.documentElement;
        const metrics: MetricsValue = {
          scroll_x: view.scrollX,
          scroll_y: view.scrollY,
          scroll_width: Math.max(root.scrollWidth, document.body?.scrollWidth ?? 0),
          scroll_height: Math.max(root.scrollHeight, document.body?.scrollHeight ?? 0),
          viewport_width: view.innerWidth,
          viewport_height: view.innerHeight,
          device_pixel_ratio: view.devicePixelRatio,
        };
        return metrics;
      }
      case 'scroll_to':
        view.scrollTo({ left: 0, top: request.y, behavior: 'instant' as ScrollBehavior });
        return { scroll_y: view.scrollY };
      case 'hide_fixed':
        // Full-page screenshots are stitched from scrolled captures; fixed headers would repeat.
        if (request.hide) {
          for (const element of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
            const position = styleOf(element).position;
            if (position === 'fixed' || position === 'sticky') {
              hiddenFixed.push({ element, visibility: element.style.visibility });
              element.style.visibility = 'hidden';
            }
          }
        } else {
          for (const { element, visibility } of hiddenFixed.splice(0)) element.style.visibility = visibility;
        }
        return { count: hiddenFixed.length };
    }
  };

  return {
    version: PAGE_AGENT_VERSION,
    async handle(request) {
      const about = () => ({ doc: state.doc, url: view.location.href, title: view.document.title });
      try {
        return { ok: true, value: await run(request), ...about() };
      } catch (error) {
        if (error instanceof PageFailure)
          return { ok: false, error: { code: error.code, message: error.message }, ...about() };
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, error: { code: 'TOOL_FAILED', message: `The page script failed: ${message}` }, ...about() };
      }
    },
  };
}
