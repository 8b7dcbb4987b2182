import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { MarkdownView, safeHref } from './markdown-view.js';

const render = (text: string) => renderToStaticMarkup(createElement(MarkdownView, { text }));

describe('the chat renders the model’s Markdown', () => {
  it('paragraphs, headings (as styled paragraphs), lists, quotes, rules and fenced code', () => {
    const html = render(
      '# Title\n\nFirst line\nsecond line\n\n- one\n- **two**\n\n3. a\n4. b\n\n> quoted\n\n---\n\n```ts\nconst x = 1;\n```',
    );
    expect(html).toContain('<p class="md-heading md-h1">Title</p>');
    expect(html).toContain('<p>First line\nsecond line</p>');
    expect(html).toContain('<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>');
    expect(html).toContain('<ol start="3">');
    expect(html).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(html).toContain('<hr/>');
    expect(html).toContain('<pre class="md-code"><code class="language-ts">const x = 1;\n</code></pre>');
    expect(html).not.toMatch(/<h[1-6]/);
  });

  it('tables, in a box that scrolls on its own', () => {
    const html = render('| Tool | Risk |\n| --- | :-: |\n| `file_read` | low |\n| bash_execute | high |');
    expect(html).toContain('<div class="md-table"><table>');
    expect(html).toContain('<th>Tool</th>');
    expect(html).toContain('<td><code>file_read</code></td>');
    expect(html).toContain('<td style="text-align:center">high</td>');
  });

  it('treats a fence still open (text streaming) as code up to the end', () => {
    expect(render('Here:\n```\nls -la\n')).toBe(
      '<div class="md"><p>Here:</p>\n<pre class="md-code"><code>ls -la\n</code></pre></div>',
    );
  });

  it('keeps whatever HTML the model writes from becoming markup', () => {
    for (const hostile of [
      '<img src=x onerror=alert(1)>',
      '<script>alert(1)</script>',
      'text <b onmouseover=alert(1)>bold</b>',
      '<iframe src="https://evil.test"></iframe>',
    ]) {
      const html = render(hostile);
      expect(html).not.toMatch(/<(?:img|script|b|iframe)\b/);
      expect(html).not.toContain('onerror');
    }
  });

  it('links only to web and mail addresses, keeping the text of any other link', () => {
    expect(render('[click](javascript:alert(1))')).toBe('<div class="md"><p>click</p></div>');
    expect(render('[x](data:text/html,hi) [y](file:///etc/passwd)')).toBe('<div class="md"><p>x y</p></div>');
    expect(render('[e](https://x.test/)')).toContain(
      '<a href="https://x.test/" target="_blank" rel="noopener noreferrer">e</a>',
    );
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    expect(safeHref('data:text/html,x')).toBe('');
  });

  it('shows images as links, never loading them', () => {
    expect(render('![a chart](https://tracker.test/pixel.png)')).toBe(
      '<div class="md"><p><a href="https://tracker.test/pixel.png" target="_blank" rel="noopener noreferrer">a chart</a></p></div>',
    );
    expect(render('![secret](javascript:alert(1))')).toBe('<div class="md"><p>secret</p></div>');
  });

  it('links bare URLs and leaves snake_case words alone', () => {
    expect(render('see https://example.com/a.')).toContain(
      '<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">https://example.com/a</a>.',
    );
    expect(render('system_info and file_read')).toBe('<div class="md"><p>system_info and file_read</p></div>');
  });
});
