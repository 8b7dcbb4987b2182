import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import type { WindowInfo } from '../../platform/desktop.js';
import { describeWindows, findWindow, sameWindowId, toWindowOutput, windowsOfApp } from './window-match.js';

function window(id: string, title: string, extra: Partial<WindowInfo> = {}): WindowInfo {
  return {
    id,
    title,
    pid: 100,
    app: 'xterm',
    bounds: { x: 10, y: 20, width: 300, height: 200 },
    focused: false,
    minimized: false,
    ...extra,
  };
}

/** Titles as the Linux adapter read them from real windows (see platform/linux/windows.test.ts). */
const WINDOWS: WindowInfo[] = [
  window('0x80000c', 'Unnamed Window', { pid: 16394, app: 'xterm', minimized: true }),
  window('0x40000c', 'tïtle "q" back\\slash 中文', { pid: 16390 }),
  window('0x60000c', 'naïve "quoted" \\path\\123 新建文档 – Editor', { pid: 16392, focused: true }),
  window('0x120000a', 'Report.odt - LibreOffice Writer', { pid: 2001, app: 'soffice.bin' }),
  window('0x120003f', 'Report.odt', { pid: 2001, app: 'soffice.bin' }),
  window('0x1400004', 'Mozilla Firefox', { pid: 3001, app: 'firefox-esr' }),
  window('0x1400099', 'Downloads - Mozilla Firefox', { pid: 3001, app: 'firefox-esr' }),
];

function caught(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

describe('sameWindowId', () => {
  it('matches the hex, zero-padded hex and decimal spellings of one id', () => {
    expect(sameWindowId('0x60000c', '0x0060000c')).toBe(true);
    expect(sameWindowId('0x60000c', '0X60000C')).toBe(true);
    expect(sameWindowId('0x60000c', '6291468')).toBe(true);
    expect(sameWindowId(' 0x60000c ', '0x60000c')).toBe(true);
  });

  it('does not match other ids or text', () => {
    expect(sameWindowId('0x60000c', '0x60000d')).toBe(false);
    expect(sameWindowId('0x60000c', '60000c')).toBe(false);
    expect(sameWindowId('0x60000c', 'xterm')).toBe(false);
  });

  it('compares ids of other platforms as text', () => {
    expect(sameWindowId('win:1234', 'win:1234')).toBe(true);
    expect(sameWindowId('win:1234', '1234')).toBe(false);
  });
});

describe('findWindow', () => {
  it('finds a window by its id in any spelling', () => {
    expect(findWindow(WINDOWS, '0x0040000c').id).toBe('0x40000c');
    expect(findWindow(WINDOWS, String(0x40000c)).id).toBe('0x40000c');
  });

  it('finds a window by part of its title, ignoring case, Chinese included', () => {
    expect(findWindow(WINDOWS, '新建文档').id).toBe('0x60000c');
    expect(findWindow(WINDOWS, 'DOWNLOADS').id).toBe('0x1400099');
    expect(findWindow(WINDOWS, '"q" back\\slash').id).toBe('0x40000c');
  });

  it('prefers the window whose whole title is the query among several matches', () => {
    expect(findWindow(WINDOWS, 'report.odt').id).toBe('0x120003f');
    expect(findWindow(WINDOWS, 'Mozilla Firefox').id).toBe('0x1400004');
  });

  it('takes the focused one among several matches', () => {
    const windows = [...WINDOWS, window('0x900001', 'Editor', { pid: 5 })];
    expect(findWindow(windows, 'edit').id).toBe('0x60000c');
    // An exact title still wins over the focused window.
    expect(findWindow(windows, 'editor').id).toBe('0x900001');
  });

  it('asks which one when several match and none is exact or focused, listing the candidates', () => {
    const error = caught(() => findWindow(WINDOWS, 'report'));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('2 windows match "report"');
    expect(error.message).toContain('"Report.odt - LibreOffice Writer" (id 0x120000a, soffice.bin)');
    expect(error.message).toContain('"Report.odt" (id 0x120003f, soffice.bin)');
    expect(error.details).toEqual({
      candidates: [toWindowOutput(WINDOWS[3] as WindowInfo), toWindowOutput(WINDOWS[4] as WindowInfo)],
    });
  });

  it('asks which one when several titles are exactly the query', () => {
    const windows = [window('0x1', 'Terminal'), window('0x2', 'Terminal')];
    const error = caught(() => findWindow(windows, 'terminal'));
    expect(error.code).toBe('INVALID_INPUT');
    expect((error.details as { candidates: unknown[] }).candidates).toHaveLength(2);
  });

  it('says NOT_FOUND listing the open windows', () => {
    const error = caught(() => findWindow(WINDOWS, 'Spreadsheet'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('"Mozilla Firefox" (id 0x1400004, firefox-esr)');
    expect((error.details as { windows: unknown[] }).windows).toHaveLength(WINDOWS.length);
    expect(caught(() => findWindow([], 'x')).message).toContain('no windows are open');
  });

  it('refuses a blank query instead of picking the focused window', () => {
    expect(caught(() => findWindow(WINDOWS, '   ')).code).toBe('INVALID_INPUT');
  });
});

describe('windowsOfApp', () => {
  it("lists an app's windows by process name, focused first and minimized last", () => {
    const windows = [
      window('0x1', 'a', { app: 'xterm', minimized: true }),
      window('0x2', 'b', { app: 'XTerm' }),
      window('0x3', 'c', { app: 'xterm', focused: true }),
      window('0x4', 'd', { app: 'firefox-esr' }),
      window('0x5', 'e', { app: 'xterm' }),
    ];
    expect(windowsOfApp(windows, ' XTERM ').map((found) => found.id)).toEqual(['0x3', '0x2', '0x5', '0x1']);
    expect(windowsOfApp(windows, 'xter')).toEqual([]);
  });

  it('gives nothing for a blank name, not the windows whose app is unknown', () => {
    expect(windowsOfApp([window('0x1', 'remote', { app: '', pid: null })], ' ')).toEqual([]);
  });
});

describe('describeWindows', () => {
  it('shortens long lists', () => {
    const many = Array.from({ length: 23 }, (_, index) =>
      window(`0x${(index + 1).toString(16)}`, `w${index}`, { app: '' }),
    );
    const text = describeWindows(many);
    expect(text).toContain('"w19" (id 0x14)');
    expect(text).not.toContain('"w20"');
    expect(text.endsWith('and 3 more')).toBe(true);
  });
});
