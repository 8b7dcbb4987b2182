import { useState, type ReactNode } from 'react';

/**
 * A list that renders only the rows in view (fixed row height), so a log of thousands of calls
 * scrolls as lightly as one of ten. The scroller takes focus so the keyboard can scroll it.
 */
export function WindowedList<T>({
  items,
  rowHeight,
  maxHeight,
  label,
  itemKey,
  renderItem,
  testId,
}: {
  items: readonly T[];
  rowHeight: number;
  maxHeight: number;
  label: string;
  itemKey: (item: T) => string;
  renderItem: (item: T) => ReactNode;
  testId?: string;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const height = Math.min(maxHeight, items.length * rowHeight);
  const overscan = 4;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return (
    <div
      className="windowed"
      style={{ height }}
      tabIndex={0}
      role="region"
      aria-label={label}
      data-testid={testId}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <ol className="windowed-inner" style={{ height: items.length * rowHeight }}>
        {items.slice(first, last).map((item, offset) => (
          <li
            key={itemKey(item)}
            className="windowed-row"
            style={{ top: (first + offset) * rowHeight, height: rowHeight }}
            aria-setsize={items.length}
            aria-posinset={first + offset + 1}
          >
            {renderItem(item)}
          </li>
        ))}
      </ol>
    </div>
  );
}
