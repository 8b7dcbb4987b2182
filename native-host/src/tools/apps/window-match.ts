import { AppError } from '@nextai/shared';

import type { WindowInfo } from '../../platform/desktop.js';

/**
 * Addressing windows the way a person (or the model) names them: by id, by app name, or by part
 * of the title (a partial match is enough).
 */

/** The window as tool outputs show it: bounds are the outer frame in absolute screen pixels. */
export interface WindowOutput {
  id: string;
  title: string;
  bounds: { x: number; y: number; width: number; height: number };
  focused: boolean;
  minimized: boolean;
}

export function toWindowOutput(window: WindowInfo): WindowOutput {
  const { x, y, width, height } = window.bounds;
  return {
    id: window.id,
    title: window.title,
    bounds: { x, y, width, height },
    focused: window.focused,
    minimized: window.minimized,
  };
}

function numericId(id: string): number | null {
  const text = id.trim();
  if (/^0x[0-9a-f]+$/iu.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^\d+$/u.test(text)) return Number.parseInt(text, 10);
  return null;
}

/** Same window id, also across spellings: "0x0060000c", "0x60000c" and "6291468" are one window. */
export function sameWindowId(a: string, b: string): boolean {
  if (a.trim() === b.trim()) return true;
  const left = numericId(a);
  return left !== null && left === numericId(b);
}

export function describeWindow(window: WindowInfo): string {
  return `"${window.title}" (id ${window.id}${window.app ? `, ${window.app}` : ''})`;
}

/** A short list of windows for error messages. */
export function describeWindows(windows: WindowInfo[], limit = 20): string {
  if (windows.length === 0) return 'no windows are open';
  const listed = windows.slice(0, limit).map(describeWindow).join(', ');
  return windows.length > limit ? `${listed} and ${windows.length - limit} more` : listed;
}

/**
 * The one window `query` names: an id, else a case-insensitive part of a title. Several titles
 * match → the one whose whole title is the query, else the focused one among them, else
 * INVALID_INPUT listing the candidates. None → NOT_FOUND listing the open windows.
 */
export function findWindow(windows: WindowInfo[], query: string): WindowInfo {
  // A blank query is part of every title: it would silently pick the focused window.
  if (query.trim() === '') throw new AppError('INVALID_INPUT', 'Name the window by its id or by part of its title.');
  const byId = windows.find((window) => sameWindowId(window.id, query));
  if (byId) return byId;
  const wanted = query.trim().toLowerCase();
  const matches = windows.filter((window) => window.title.toLowerCase().includes(wanted));
  if (matches.length === 1) return matches[0] as WindowInfo;
  if (matches.length === 0) {
    throw new AppError(
      'NOT_FOUND',
      `No window has the id or a title containing "${query}". Open windows: ${describeWindows(windows)}.`,
      {
        details: { windows: windows.map(toWindowOutput) },
      },
    );
  }
  const exact = matches.filter((window) => window.title.toLowerCase() === wanted);
  if (exact.length === 1) return exact[0] as WindowInfo;
  const pool = exact.length > 1 ? exact : matches;
  const focused = pool.find((window) => window.focused);
  if (focused) return focused;
  throw new AppError(
    'INVALID_INPUT',
    `${pool.length} windows match "${query}": ${describeWindows(pool)}. Name one by its id or by more of its title.`,
    { details: { candidates: pool.map(toWindowOutput) } },
  );
}

/** Windows of the app called `name` (process name, case-insensitive); the best one to show first. */
export function windowsOfApp(windows: WindowInfo[], name: string): WindowInfo[] {
  const wanted = name.trim().toLowerCase();
  if (wanted === '') return []; // Not the windows whose app is unknown ("").
  const own = windows.filter((window) => window.app.toLowerCase() === wanted);
  // Focused first, then visible ones, keeping the window manager's order otherwise.
  return [...own].sort((a, b) => rank(a) - rank(b));
}

function rank(window: WindowInfo): number {
  if (window.focused) return 0;
  return window.minimized ? 2 : 1;
}
