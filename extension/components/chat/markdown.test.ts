import { describe, expect, it } from 'vitest';

import { parseInline, parseMarkdown, safeHref } from './markdown.js';

describe('parseMarkdown', () => {
  it('reads paragraphs, headings, lists, quotes, rules and fenced code', () => {
    const blocks = parseMarkdown(
      '# Title\n\nFirst line\nsecond line\n\n- one\n- **two**\n\n1. a\n2. b\n\n> quoted\n\n---\n\n```ts\nconst x = 1;\n```',
    );
    expect(blocks.map((block) => block.type)).toEqual([
      'heading',
      'paragraph',
      'list',
      'list',
      'quote',
      'rule',
      'code',
    ]);
    expect(blocks[1]).toEqual({ type: 'paragraph', children: [{ type: 'text', text: 'First line\nsecond line' }] });
    expect(blocks[2]).toMatchObject({
      type: 'list',
      ordered: false,
      items: [[{ type: 'paragraph' }], [{ type: 'paragraph' }]],
    });
    expect(blocks[3]).toMatchObject({ type: 'list', ordered: true, start: 1 });
    expect(blocks[6]).toEqual({ type: 'code', lang: 'ts', text: 'const x = 1;' });
  });

  it('treats a fence still open (text streaming) as code up to the end', () => {
    expect(parseMarkdown('Here:\n```\nls -la\n')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'Here:' }] },
      { type: 'code', lang: '', text: 'ls -la\n' },
    ]);
  });

  it('keeps HTML as text: nothing the model writes becomes markup', () => {
    expect(parseMarkdown('<img src=x onerror=alert(1)>')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: '<img src=x onerror=alert(1)>' }] },
    ]);
  });
});

describe('parseInline', () => {
  it('reads bold, italic, code and links', () => {
    expect(parseInline('a **b** *c* `d` [e](https://x.test/)')).toEqual([
      { type: 'text', text: 'a ' },
      { type: 'strong', children: [{ type: 'text', text: 'b' }] },
      { type: 'text', text: ' ' },
      { type: 'em', children: [{ type: 'text', text: 'c' }] },
      { type: 'text', text: ' ' },
      { type: 'code', text: 'd' },
      { type: 'text', text: ' ' },
      { type: 'link', href: 'https://x.test/', children: [{ type: 'text', text: 'e' }] },
    ]);
  });

  it('drops links that are not web or mail links, keeping their text', () => {
    expect(parseInline('[click](javascript:alert(1))')).toEqual([
      { type: 'text', text: 'click' },
      { type: 'text', text: ')' },
    ]);
    expect(safeHref('data:text/html,x')).toBeUndefined();
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
  });

  it('links bare URLs and leaves snake_case words alone', () => {
    expect(parseInline('see https://example.com/a.')).toEqual([
      { type: 'text', text: 'see ' },
      { type: 'link', href: 'https://example.com/a', children: [{ type: 'text', text: 'https://example.com/a' }] },
      { type: 'text', text: '.' },
    ]);
    expect(parseInline('system_info and file_read')).toEqual([{ type: 'text', text: 'system_info and file_read' }]);
  });
});
