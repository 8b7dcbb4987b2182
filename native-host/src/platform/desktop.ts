/**
 * The platform-adapter interface: what the host tools need from the operating system, in screen
 * pixels and plain data. One implementation per OS (linux/, macos/, windows/) and a fake for logic
 * tests; `createDesktop()` in desktop-select.ts picks the one for the running OS. Tool handlers
 * never call OS programs themselves: they go through this, so scaling, coordinate mapping, OCR and
 * result shapes are written once.
 *
 * Every method may throw AppError: `UNAVAILABLE` (no display, missing permission, missing helper
 * program — the message names the package or setting that fixes it), `NOT_FOUND` (no such
 * window or app), `INVALID_INPUT` (off-screen point, empty region), `TOOL_FAILED`.
 */
import type { Platform } from '@nextai/shared';

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** A rectangle in screen pixels; x/y may be negative on multi-monitor layouts. */
export interface Rect extends Point, Size {}

/** Raw pixels as captured, before any scaling or encoding. */
export interface RawImage {
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA/BGRA, see `order`). */
  channels: 3 | 4;
  /** Byte order of each pixel. */
  order: 'rgb' | 'bgr';
  data: Buffer;
}

export type MouseButton = 'left' | 'right' | 'middle';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

/** Canonical key names: see keys.ts (`normalizeKey`). Modifiers are `ctrl`, `alt`, `shift`, `meta`. */
export type KeyName = string;

export interface LaunchOptions {
  /**
   * Wraps the resolved command so that it starts in the sandbox: given the command and the
   * environment it would get, what to start instead. Adapters that cannot confine an app refuse
   * (SANDBOX_UNAVAILABLE) rather than start it unconfined.
   */
  confine?: (
    command: string[],
    env: Record<string, string>,
  ) => { file: string; args: string[]; env: Record<string, string> };
  /**
   * Told the pid of what was started the moment it exists — before the adapter knows whether the
   * app keeps running — so the daemon's registry of launched apps (launched-apps.ts) can end it
   * at an emergency stop, even one that comes while the launch is still being watched.
   */
  started?: (pid: number) => void;
  /**
   * The value of NEXTAI_AGENT_PROCESS the app gets (HostServices.agentMark), so that it and all it
   * starts are the agent's — also to an emergency stop after the daemon restarted. `'1'` when absent.
   */
  agentMark?: string | undefined;
}

export interface WindowInfo {
  /** Stable while the window exists (X11: the window id in hex, e.g. "0x3a00007"). */
  id: string;
  title: string;
  pid: number | null;
  /** The application's name (process name or WM_CLASS), for matching `app_switch` and `app_close`. */
  app: string;
  /** Outer frame in absolute screen pixels. */
  bounds: Rect;
  focused: boolean;
  minimized: boolean;
}

export interface AppInfo {
  name: string;
  pid: number;
}

export type WindowAction =
  | { kind: 'maximize' }
  | { kind: 'minimize' }
  | { kind: 'restore' }
  | { kind: 'resize'; width: number; height: number }
  | { kind: 'move'; x: number; y: number };

export interface ClipboardContent {
  /** Every format the clipboard offers (MIME types or the platform's names). */
  formats: string[];
  text?: string;
  /** PNG bytes when the clipboard holds an image. */
  png?: Buffer;
}

export type Urgency = 'low' | 'normal' | 'critical';

export interface ScreenAdapter {
  /** Size of the whole virtual screen (all monitors), in pixels. */
  screenSize(): Promise<Size>;
  /** Captures the screen, or a region of it, at full resolution. */
  capture(region?: Rect): Promise<RawImage>;
}

export interface InputAdapter {
  pointer(): Promise<Point>;
  /** `durationMs` 0 moves at once; more glides along a path taking about that long. */
  mouseMove(to: Point, durationMs: number, signal?: AbortSignal): Promise<void>;
  /** Clicks `count` times at `at`, holding `modifiers` (canonical names) during the clicks. */
  click(at: Point, button: MouseButton, count: number, modifiers: KeyName[]): Promise<void>;
  drag(from: Point, to: Point, durationMs: number, signal?: AbortSignal): Promise<void>;
  /** `amount` in pixels; the adapter converts it to wheel steps. */
  scroll(at: Point, direction: ScrollDirection, amount: number): Promise<void>;
  /** Types any Unicode text exactly as given (symbols, CJK, emoji). */
  typeText(text: string, delayMs: number, signal?: AbortSignal): Promise<void>;
  /** Presses the keys together (a chord) and releases them in reverse order. */
  pressKeys(keys: KeyName[]): Promise<void>;
  /** Releases every key and button that may be held (emergency stop). Says what it did. */
  releaseAll(): Promise<string>;
}

export interface WindowAdapter {
  listWindows(): Promise<WindowInfo[]>;
  /**
   * The window with the keyboard focus, null when none has it. Optional: where it is missing,
   * the focused one of `listWindows()` is the answer (an adapter adds it when that is cheaper).
   */
  focusedWindow?(): Promise<WindowInfo | null>;
  listApps(): Promise<AppInfo[]>;
  focusWindow(id: string): Promise<void>;
  /** Asks the window to close (graceful). */
  closeWindow(id: string): Promise<void>;
  windowAction(id: string, action: WindowAction): Promise<void>;
  /**
   * Starts an app by name or path, detached from the daemon; resolves with its pid if known (with
   * `confine`, the pid of what was started around it).
   */
  launchApp(name: string, args: string[], options?: LaunchOptions): Promise<{ pid: number | null }>;
  /** Ends processes: SIGTERM (graceful) or SIGKILL (forced) on POSIX; taskkill on Windows. */
  killProcess(pid: number, force: boolean): Promise<void>;
}

export interface ClipboardAdapter {
  read(): Promise<ClipboardContent>;
  writeText(text: string): Promise<void>;
  writeImage(png: Buffer): Promise<void>;
}

export interface NotificationAdapter {
  notify(title: string, body: string, urgency: Urgency): Promise<void>;
}

export interface TrashAdapter {
  /**
   * Moves a file or directory to the desktop trash; resolves with where it went. `via`, where
   * given, is how to reach that very entry (Linux: through its open folder, /proc/self/fd/<n>/<name>)
   * so it is the entry the policy judged that moves, even if its path was re-pointed meanwhile;
   * `absolutePath` is still what the trash records as where it came from. Adapters that move
   * by name (macOS, Windows) ignore it.
   */
  moveToTrash(absolutePath: string, options?: { via?: string }): Promise<{ trashedTo: string }>;
}

export interface Desktop {
  platform: Platform;
  screen: ScreenAdapter;
  input: InputAdapter;
  windows: WindowAdapter;
  clipboard: ClipboardAdapter;
  notifications: NotificationAdapter;
  trash: TrashAdapter;
}
