import { AppError, type OwnSurface } from '@nextai/shared';

import type { Point } from '../../platform/desktop.js';
import { sleep } from '../../core/sleep.js';

/**
 * How long after the agent's previous mouse or keyboard input its next click or key waits, so the
 * browser can report what that input opened or focused (a click on the toolbar button opens the
 * side panel; F6 moves the focus into it) before the next one could land there.
 */
export const SURFACE_SETTLE_MS = 250;

/** Screen pixels around a surface that count as on it: the rectangle is the browser's estimate. */
const MARGIN_PX = 4;

const KIND_NAMES: Record<OwnSurface['kind'], { en: string; zh: string }> = {
  panel: { en: "NextAI's side panel", zh: 'NextAI 侧边栏' },
  extension_page: { en: "a page of NextAI's extension", zh: 'NextAI 扩展的页面' },
  browser_page: {
    en: "a page of the browser's settings, extensions or developer tools",
    zh: '浏览器的设置、扩展程序或开发者工具页面',
  },
};

export interface OwnSurfacesOptions {
  /** Milliseconds since the agent's previous input ended (not the one under way). */
  sinceLastInput(): number;
  /**
   * Whether the browser's DIPs are screen pixels times `scale` here (X11, Windows). On macOS the
   * screen is measured in points, as the browser's windows are: `scale` does not apply.
   */
  devicePixels?: boolean;
  /**
   * Asks each browser where NextAI's pages are now and reports the answers (a browser that does
   * not answer keeps what it last reported). The browsers' own reports can lag: some window
   * managers send no focus event when another app takes the focus.
   */
  ask?: () => Promise<void>;
  /** Whether any browser is connected now; without one there is nothing to wait for or ask. */
  browsersConnected?: () => boolean;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * NextAI's own pages on the person's screen, as each connected browser reports them:
 * the agent's mouse and keyboard may not act on them. A click there could answer an approval or
 * change a setting, and keys typed there would speak in the person's conversation. The browser
 * reports synthetic input as a real gesture, so the panel alone cannot tell the agent's click
 * from the person's; the daemon, which sends the agent's input, can refuse to send it.
 *
 * Each source (a browser connection) replaces its whole list; a source that goes away is forgotten.
 */
export class OwnSurfaces {
  private readonly bySource = new Map<string, OwnSurface[]>();
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: OwnSurfacesOptions) {
    this.sleep = options.sleep ?? sleep;
  }

  report(source: string, surfaces: readonly OwnSurface[]): void {
    if (surfaces.length === 0) this.bySource.delete(source);
    else this.bySource.set(source, [...surfaces]);
  }

  forget(source: string): void {
    this.bySource.delete(source);
  }

  /** The surface a click at `point` (screen pixels) would land on, if any. */
  at(point: Point): OwnSurface | undefined {
    const scaled = this.options.devicePixels ?? true;
    return this.all().find((surface) =>
      surface.rects.some((rect) => contains(rect, scaled ? surface.scale : 1, point)),
    );
  }

  /** The surface that has the keyboard focus, if any. */
  focused(): OwnSurface | undefined {
    return this.all().find((surface) => surface.focused);
  }

  /**
   * Before the agent presses a button at `points` (screen pixels): waits for reports of what its
   * previous input did, then refuses (POLICY_BLOCKED) when any point is on one of NextAI's pages.
   */
  async beforePointer(points: readonly Point[], signal?: AbortSignal): Promise<void> {
    await this.settle(signal);
    for (const point of points) {
      const surface = this.at(point);
      if (surface) throw refusal(surface, 'pointer', point);
    }
  }

  /** Before the agent sends keys: refuses (POLICY_BLOCKED) when one of NextAI's pages has the focus. */
  async beforeKeys(signal?: AbortSignal): Promise<void> {
    await this.settle(signal);
    const surface = this.focused();
    if (surface) throw refusal(surface, 'keys');
  }

  private all(): OwnSurface[] {
    return [...this.bySource.values()].flat();
  }

  private async settle(signal?: AbortSignal): Promise<void> {
    // No browser connected, no page of NextAI's that could have opened or taken the focus (a
    // browser that connects reports its pages at once): nothing to wait for.
    if (this.options.browsersConnected && !this.options.browsersConnected()) return;
    const wait = SURFACE_SETTLE_MS - this.options.sinceLastInput();
    if (wait > 0) await this.sleep(wait, signal);
    await this.options.ask?.();
  }
}

function contains(rect: OwnSurface['rects'][number], scale: number, point: Point): boolean {
  const left = rect.x * scale - MARGIN_PX;
  const top = rect.y * scale - MARGIN_PX;
  const right = (rect.x + rect.width) * scale + MARGIN_PX;
  const bottom = (rect.y + rect.height) * scale + MARGIN_PX;
  return point.x >= left && point.x < right && point.y >= top && point.y < bottom;
}

function refusal(surface: OwnSurface, what: 'pointer' | 'keys', point?: Point): AppError {
  const name = KIND_NAMES[surface.kind];
  const en =
    what === 'pointer'
      ? `Screen pixel (${point?.x}, ${point?.y}) is on ${name.en}. The agent may not click, drag or scroll there: approvals, the emergency stop and settings are the person's alone. Work in another window, or ask the person.`
      : `${name.en[0]?.toUpperCase()}${name.en.slice(1)} has the keyboard focus, so keys would be typed into it. The agent may not type there: approvals, the emergency stop and settings are the person's alone. Focus another window first (app_switch), or ask the person.`;
  const zh =
    what === 'pointer'
      ? `屏幕像素 (${point?.x}, ${point?.y}) 位于${name.zh}上。智能体不能在那里点击、拖动或滚动：审批、紧急停止和设置只属于用户本人。请在其他窗口中操作，或询问用户。`
      : `${name.zh}当前拥有键盘焦点，按键会输入到其中。智能体不能在那里输入：审批、紧急停止和设置只属于用户本人。请先切换到其他窗口（app_switch），或询问用户。`;
  return new AppError('POLICY_BLOCKED', { en, 'zh-CN': zh }, { details: { surface: surface.kind } });
}
