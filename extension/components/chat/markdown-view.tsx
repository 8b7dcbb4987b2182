import { memo, type ReactNode } from 'react';

import { parseMarkdown, type Block, type Inline } from './markdown.js';

/** The model's Markdown as React elements (never as HTML: see markdown.ts). */
export const MarkdownView = memo(function MarkdownView({ text }: { text: string }) {
  return <div className="md">{parseMarkdown(text).map(renderBlock)}</div>;
});

function renderBlock(block: Block, key: number): ReactNode {
  switch (block.type) {
    case 'paragraph':
      return <p key={key}>{block.children.map(renderInline)}</p>;
    case 'heading': {
      // Headings inside a message are visual only: the panel's outline stays the panel's own.
      return (
        <p key={key} className={`md-heading md-h${Math.min(block.level, 4)}`}>
          {block.children.map(renderInline)}
        </p>
      );
    }
    case 'code':
      return (
        <pre key={key} className="md-code" data-lang={block.lang || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case 'quote':
      return <blockquote key={key}>{block.children.map(renderBlock)}</blockquote>;
    case 'list': {
      const items = block.items.map((item, index) => <li key={index}>{item.map(renderBlock)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'rule':
      return <hr key={key} />;
  }
}

function renderInline(inline: Inline, key: number): ReactNode {
  switch (inline.type) {
    case 'text':
      return inline.text;
    case 'code':
      return <code key={key}>{inline.text}</code>;
    case 'strong':
      return <strong key={key}>{inline.children.map(renderInline)}</strong>;
    case 'em':
      return <em key={key}>{inline.children.map(renderInline)}</em>;
    case 'link':
      return (
        <a key={key} href={inline.href} target="_blank" rel="noopener noreferrer">
          {inline.children.map(renderInline)}
        </a>
      );
  }
}
