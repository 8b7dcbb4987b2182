import { memo, type ComponentProps } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * The model's Markdown as React elements, with GitHub's tables, task lists, strikethrough and bare
 * links. Never as HTML: react-markdown builds elements from the syntax tree, and HTML the model
 * writes is dropped (`skipHtml`), so a message can never become markup, script or a tracking image.
 */
export const MarkdownView = memo(function MarkdownView({ text }: { text: string }) {
  return (
    <div className="md">
      <Markdown remarkPlugins={REMARK_PLUGINS} skipHtml urlTransform={safeHref} components={COMPONENTS}>
        {text}
      </Markdown>
    </div>
  );
});

const REMARK_PLUGINS = [remarkGfm];

/** Web and mail links only; anything else (javascript:, data:, file:, relative) is no link at all. */
export function safeHref(url: string): string {
  return /^(?:https?:\/\/|mailto:)/i.test(url.trim()) ? url.trim() : '';
}

/** Headings inside a message are visual only: the panel's outline stays the panel's own. */
function heading(level: number) {
  return function Heading({ children }: ComponentProps<'h1'>) {
    return <p className={`md-heading md-h${Math.min(level, 4)}`}>{children}</p>;
  };
}

const COMPONENTS: Components = {
  h1: heading(1),
  h2: heading(2),
  h3: heading(3),
  h4: heading(4),
  h5: heading(5),
  h6: heading(6),
  a({ href, children }) {
    // A link whose address was refused keeps its text, without being a link.
    if (!href) return <>{children}</>;
    return (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  },
  // An image in the answer would be fetched by the panel as it opens (a tracking pixel, a page
  // that learns the conversation is being read): it is a link to the image instead.
  img({ src, alt }) {
    const href = typeof src === 'string' ? safeHref(src) : '';
    const label = alt || href;
    return href ? (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {label}
      </a>
    ) : (
      <>{alt}</>
    );
  },
  pre({ children }) {
    return <pre className="md-code">{children}</pre>;
  },
  // Wide tables scroll on their own instead of widening the panel.
  table({ children }) {
    return (
      <div className="md-table">
        <table>{children}</table>
      </div>
    );
  },
};
