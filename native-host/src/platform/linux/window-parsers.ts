import { AppError } from '@nextai/shared';

import type { Rect } from '../desktop.js';

/**
 * Reading what the X tools print: `xprop` (the window manager's client list on the root window,
 * each window's properties), `xwininfo` (geometry, one window or the whole tree) and window ids
 * as people and tools spell them. Pure text in, values out: the Linux window adapter
 * (windows.ts) runs the programs.
 */

export interface WindowProperties {
  title: string;
  pid: number | null;
  state: string[];
  /** left, right, top, bottom */
  frameExtents: [number, number, number, number];
  types: string[];
  wmClass: string[];
  /** The host the client says it runs on (an app in the sandbox: the sandbox's own name). */
  machine?: string | undefined;
}

export interface ClientGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** "0x0060000c", "0x60000c" and "6291468" (decimal, as xdotool prints) all become "0x60000c". */
export function normalizeWindowId(id: string): string {
  const text = id.trim();
  let value: number;
  if (/^0x[0-9a-f]+$/iu.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (/^\d+$/u.test(text)) value = Number.parseInt(text, 10);
  else throw new AppError('INVALID_INPUT', `"${id}" is not an X window id (like 0x3a00007).`);
  return `0x${value.toString(16)}`;
}

export function outerBounds(client: ClientGeometry, extents: [number, number, number, number]): Rect {
  const [left, right, top, bottom] = extents;
  return {
    x: client.x - left,
    y: client.y - top,
    width: client.width + left + right,
    height: client.height + top + bottom,
  };
}

/** `xprop -root _NET_CLIENT_LIST _NET_ACTIVE_WINDOW` → managed windows and the focused one. */
export function parseRootProperties(text: string): { clients: string[]; active: string | null } {
  const list = /^_NET_CLIENT_LIST\(WINDOW\): window id # (.*)$/mu.exec(text);
  if (!list) {
    // "not found": the atom exists but no window manager set it (it quit); "no such atom": none ever ran.
    if (/^_NET_CLIENT_LIST:\s+(?:not found|no such atom)/mu.test(text)) {
      throw new AppError(
        'UNAVAILABLE',
        'No EWMH window manager is running on this display (the root window has no _NET_CLIENT_LIST), so windows cannot be listed or arranged. Run a desktop session or a window manager such as openbox.',
      );
    }
    return { clients: [], active: null };
  }
  const clients = (list[1] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => /^0x[0-9a-f]+$/iu.test(id))
    .map(normalizeWindowId);
  const active = /^_NET_ACTIVE_WINDOW\(WINDOW\): window id # (0x[0-9a-f]+)/imu.exec(text)?.[1];
  const activeId = active ? normalizeWindowId(active) : null;
  return { clients, active: activeId === '0x0' ? null : activeId };
}

/** The per-window `xprop` output → title, pid, state, frame extents, type and WM_CLASS. */
export function parseWindowProperties(text: string): WindowProperties {
  const values = new Map<string, { type: string; value: string }>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z_0-9]+)\(([A-Za-z_0-9]+)\) = ?(.*)$/u.exec(line);
    if (match) values.set(match[1] as string, { type: match[2] as string, value: match[3] as string });
  }
  const string = (name: string): string | undefined => {
    const entry = values.get(name);
    return entry ? decodeXpropString(entry.value, name, entry.type) : undefined;
  };
  const atoms = (name: string): string[] =>
    (values.get(name)?.value ?? '')
      .split(',')
      .map((atom) => atom.trim())
      .filter(Boolean);
  const numbers = (name: string): number[] =>
    (values.get(name)?.value ?? '')
      .split(',')
      .map((value) => Number.parseInt(value.trim(), 10))
      .filter(Number.isFinite);
  const title = [string('_NET_WM_NAME'), string('_NET_WM_VISIBLE_NAME'), string('WM_NAME')].find(
    (candidate) => candidate !== undefined && candidate !== '',
  );
  const pid = numbers('_NET_WM_PID')[0];
  const extents = numbers('_NET_FRAME_EXTENTS');
  const wmClassValue = values.get('WM_CLASS')?.value ?? '';
  const machine = string('WM_CLIENT_MACHINE');
  return {
    ...(machine ? { machine } : {}),
    title: title ?? '',
    pid: pid !== undefined && pid > 0 ? pid : null,
    state: atoms('_NET_WM_STATE'),
    frameExtents: extents.length === 4 ? (extents as [number, number, number, number]) : [0, 0, 0, 0],
    types: atoms('_NET_WM_WINDOW_TYPE'),
    wmClass: [...wmClassValue.matchAll(/"((?:[^"\\]|\\.)*)"/gu)].map((match) =>
      decodeEscapes(match[1] ?? '', values.get('WM_CLASS')?.type ?? 'STRING'),
    ),
  };
}

/**
 * Properties xprop prints in its text format ("8t" in its default format table) whatever their
 * type (STRING, UTF8_STRING or COMPOUND_TEXT): converted to the locale's encoding and printed
 * as they are, quotes and backslashes included; only characters that are not printable (control
 * characters, bytes that do not convert) become three-digit octal escapes. Every other string
 * property ("8s", "8u": _NET_WM_NAME, WM_CLASS…) is printed with \" \\ \n \t escaped and, outside
 * valid UTF-8, non-ASCII bytes as octal.
 */
const TEXT_FORMAT_PROPERTIES = new Set(['WM_NAME', 'WM_ICON_NAME']);

/**
 * An xprop string value, e.g. `"naïve \"q\" \\path"` for _NET_WM_NAME or `"naïve "q" \path"` for
 * WM_NAME (see TEXT_FORMAT_PROPERTIES). `property` is the property's name, `type` its type.
 * Text before the first quote (xprop's "<Invalid UTF-8 string: …>" note) is skipped.
 */
export function decodeXpropString(value: string, property: string, type: string): string {
  const first = value.indexOf('"');
  const last = value.lastIndexOf('"');
  if (first === -1 || last <= first) return '';
  const inner = value.slice(first + 1, last);
  if (TEXT_FORMAT_PROPERTIES.has(property)) return decodeTextFormat(inner);
  return decodeEscapes(inner, type);
}

function decodeEscapes(text: string, type: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === '\\' && index + 1 < text.length) {
      const octal = /^[0-7]{1,3}/u.exec(text.slice(index + 1))?.[0];
      if (octal) {
        bytes.push(Number.parseInt(octal, 8) & 0xff);
        index += octal.length;
        continue;
      }
      const next = text[++index] as string;
      const mapped = next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
      bytes.push(...Buffer.from(mapped, 'utf8'));
      continue;
    }
    const codePoint = text.codePointAt(index) as number;
    const whole = String.fromCodePoint(codePoint);
    bytes.push(...Buffer.from(whole, 'utf8'));
    index += whole.length - 1;
  }
  return decodeBytes(Buffer.from(bytes), type);
}

/** STRING is Latin-1 by the ICCCM, yet many apps store UTF-8 in it: UTF-8 when the bytes are valid UTF-8. */
function decodeBytes(bytes: Buffer, type: string): string {
  if (type !== 'STRING') return bytes.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/**
 * xprop's text format: only a non-printable character is escaped, so `\ooo` is an escape when
 * its value is a control character or a byte above 0x7e; `\123` ("S", printable) is literal text.
 */
function decodeTextFormat(text: string): string {
  const bytes: number[] = [];
  let literal = '';
  const flush = () => {
    bytes.push(...Buffer.from(literal, 'utf8'));
    literal = '';
  };
  for (let index = 0; index < text.length; index++) {
    const octal = text[index] === '\\' ? /^[0-3][0-7]{2}/u.exec(text.slice(index + 1))?.[0] : undefined;
    const value = octal === undefined ? -1 : Number.parseInt(octal, 8);
    if (octal !== undefined && (value < 0x20 || value > 0x7e)) {
      flush();
      bytes.push(value);
      index += octal.length;
      continue;
    }
    literal += text[index] as string;
  }
  flush();
  return Buffer.from(bytes).toString('utf8');
}

/** `xwininfo -root -tree` → every window's absolute position and size, by id. */
export function parseTree(text: string): Map<string, ClientGeometry> {
  const windows = new Map<string, ClientGeometry>();
  for (const line of text.split('\n')) {
    const match = /^\s*(0x[0-9a-f]+)\s.*\s(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)\s*$/iu.exec(line);
    if (!match) continue;
    windows.set(normalizeWindowId(match[1] as string), {
      width: Number(match[2]),
      height: Number(match[3]),
      x: Number(match[4]),
      y: Number(match[5]),
    });
  }
  return windows;
}

/** `xwininfo -id <id>` → the window's absolute position and size. */
export function parseXwininfo(text: string): ClientGeometry {
  const field = (label: string): number => {
    const match = new RegExp(`^\\s*${label}:\\s+(-?\\d+)`, 'mu').exec(text);
    if (!match) throw new AppError('TOOL_FAILED', `Unexpected xwininfo output (no "${label}"): ${text.slice(0, 300)}`);
    return Number(match[1]);
  };
  return {
    x: field('Absolute upper-left X'),
    y: field('Absolute upper-left Y'),
    width: field('Width'),
    height: field('Height'),
  };
}
