/**
 * A small Markdown reader for the model's text: blocks (paragraphs, headings, lists, quotes,
 * fenced code, rules) and inline marks (bold, italic, code, links). It builds a tree that the
 * chat renders as React elements, so nothing the model writes is ever parsed as HTML. Text that
 * is still streaming parses the same way: an unclosed fence is code up to the end.
 */

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] };

export type Block =
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'quote'; children: Block[] }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'rule' };

const FENCE = /^ {0,3}(```|~~~)\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;

export function parseMarkdown(source: string): Block[] {
  return parseBlocks(source.replace(/\r\n?/g, '\n').split('\n'));
}

function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n')) });
    paragraph = [];
  };
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? '').trimStart().startsWith(marker)) {
        body.push(lines[index] ?? '');
        index += 1;
      }
      index += 1; // the closing fence (or the end of a text still streaming)
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flush();
      index += 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({ type: 'heading', level: heading[1]?.length ?? 1, children: parseInline(heading[2] ?? '') });
      index += 1;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      blocks.push({ type: 'rule' });
      index += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const body: string[] = [];
      while (index < lines.length && QUOTE.test(lines[index] ?? '')) {
        body.push((lines[index] ?? '').replace(QUOTE, ''));
        index += 1;
      }
      blocks.push({ type: 'quote', children: parseBlocks(body) });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item && (paragraph.length === 0 || /^[-*+]|^1[.)]/.test(item[2] ?? ''))) {
      flush();
      const ordered = /\d/.test(item[2] ?? '');
      const start = ordered ? Number.parseInt(item[2] ?? '1', 10) : 1;
      const items: string[][] = [];
      while (index < lines.length) {
        const current = lines[index] ?? '';
        const match = LIST_ITEM.exec(current);
        if (match && /\d/.test(match[2] ?? '') === ordered && (match[1]?.length ?? 0) <= 3) {
          items.push([match[3] ?? '']);
          index += 1;
          continue;
        }
        // Indented lines continue the item (nested lists included); a blank line followed by an
        // indented line too. Anything else ends the list.
        if (items.length > 0 && /^\s{2,}\S/.test(current)) {
          items[items.length - 1]?.push(current.replace(/^\s{2,4}/, ''));
          index += 1;
          continue;
        }
        if (current.trim() === '' && /^\s{2,}\S/.test(lines[index + 1] ?? '')) {
          items[items.length - 1]?.push('');
          index += 1;
          continue;
        }
        break;
      }
      blocks.push({ type: 'list', ordered, start, items: items.map((body) => parseBlocks(body)) });
      continue;
    }
    paragraph.push(line);
    index += 1;
  }
  flush();
  return blocks;
}

/** Only web and mail links are followed; anything else (javascript:, data:, file:) stays text. */
export function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) ? trimmed : undefined;
}

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const pushText = () => {
    if (plain !== '') out.push({ type: 'text', text: plain });
    plain = '';
  };
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const char = text[index] ?? '';
    if (char === '\\' && index + 1 < text.length && /[\\`*_[\]()#>!-]/.test(text[index + 1] ?? '')) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    if (char === '`') {
      const ticks = /^`+/.exec(rest)?.[0] ?? '`';
      const end = text.indexOf(ticks, index + ticks.length);
      if (end !== -1) {
        pushText();
        out.push({ type: 'code', text: text.slice(index + ticks.length, end).trim() });
        index = end + ticks.length;
        continue;
      }
    }
    if (char === '[') {
      const link = /^\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/.exec(rest);
      if (link) {
        const href = safeHref(link[2] ?? '');
        pushText();
        const children = parseInline(link[1] ?? '');
        if (href) out.push({ type: 'link', href, children });
        else out.push(...children);
        index += link[0].length;
        continue;
      }
    }
    const autolink = /^https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"]/.exec(rest);
    if (autolink && (index === 0 || /[\s(]/.test(text[index - 1] ?? ''))) {
      pushText();
      out.push({ type: 'link', href: autolink[0], children: [{ type: 'text', text: autolink[0] }] });
      index += autolink[0].length;
      continue;
    }
    if (char === '*' || char === '_') {
      const strong =
        char === '*' ? /^\*\*(?=\S)([\s\S]*?\S)\*\*/.exec(rest) : /^__(?=\S)([\s\S]*?\S)__(?!\w)/.exec(rest);
      if (strong && (char === '*' || index === 0 || !/\w/.test(text[index - 1] ?? ''))) {
        pushText();
        out.push({ type: 'strong', children: parseInline(strong[1] ?? '') });
        index += strong[0].length;
        continue;
      }
      const em = char === '*' ? /^\*(?=[^\s*])([^*]*?[^\s*])\*/.exec(rest) : /^_(?=\S)([^_]*?\S)_(?!\w)/.exec(rest);
      if (em && (char === '*' || index === 0 || !/\w/.test(text[index - 1] ?? ''))) {
        pushText();
        out.push({ type: 'em', children: parseInline(em[1] ?? '') });
        index += em[0].length;
        continue;
      }
    }
    plain += char;
    index += 1;
  }
  pushText();
  return out;
}
