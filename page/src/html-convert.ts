/**
 * web_fetch's conversion of fetched HTML (no browser): the same markdown converter as the page
 * agent, on a document parsed by linkedom. Built for Node by page/build.mjs.
 */
import { parseHTML } from 'linkedom';

import { collapse } from './dom.js';
import { mainContent, toMarkdown } from './markdown.js';

export function htmlToContent(html: string, url: string, format: 'markdown' | 'text'): string {
  const { document } = parseHTML(html);
  // Relative links and images resolve against the page's address, as in a browser.
  const base = document.createElement('base');
  base.setAttribute('href', url);
  document.head?.prepend(base);
  for (const element of Array.from(document.querySelectorAll('a[href],img[src]'))) {
    const attribute = element.localName === 'a' ? 'href' : 'src';
    try {
      element.setAttribute(attribute, new URL(element.getAttribute(attribute) ?? '', url).href);
    } catch {
      // An address that does not parse stays as the page wrote it.
    }
  }
  if (format === 'markdown') return toMarkdown(mainContent(document as unknown as Document), { rendered: false });
  for (const element of Array.from(
    document.querySelectorAll('script,style,noscript,template,[hidden],[aria-hidden="true"]'),
  )) {
    element.remove();
  }
  const blocks = Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6,p,li,pre,td,th,dt,dd,blockquote,figcaption'));
  const text = blocks.map((block) => collapse(block.textContent ?? '')).filter(Boolean);
  return text.length > 0 ? text.join('\n') : collapse(document.body?.textContent ?? '');
}
