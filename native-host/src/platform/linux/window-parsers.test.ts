import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import {
  decodeXpropString,
  normalizeWindowId,
  outerBounds,
  parseRootProperties,
  parseTree,
  parseWindowProperties,
  parseXwininfo,
} from './window-parsers.js';

/*
 * Every fixture below is real output, captured under Xvfb + openbox with LC_ALL=C.UTF-8 (as the
 * adapter runs these programs) from xterms started with -T 'tïtle "q" back\slash 中文', -T plain
 * and -class MyClass -name my.name -T '', then moved (wmctrl -e 1,-50,-30,-1,-1), maximized,
 * minimized, and retitled with `xprop -f <property> <format> -set`. Long lists are trimmed to
 * whole lines.
 */

const ROOT = `_NET_CLIENT_LIST(WINDOW): window id # 0x80000c, 0x40000c, 0x60000c
_NET_ACTIVE_WINDOW(WINDOW): window id # 0x60000c
`;
/** openbox running, no window open yet or any more. */
const ROOT_EMPTY = `_NET_CLIENT_LIST(WINDOW): window id # 
_NET_ACTIVE_WINDOW:  not found.
`;
/** A fresh X server that never had a window manager. */
const ROOT_NO_WM = `_NET_CLIENT_LIST:  no such atom on any window.
_NET_ACTIVE_WINDOW:  no such atom on any window.
`;

/** xterm -T 'tïtle "q" back\slash 中文': xterm sets WM_NAME as COMPOUND_TEXT, openbox the visible name. */
const PROPS_XTERM_UNICODE = `_NET_WM_NAME:  not found.
_NET_WM_VISIBLE_NAME(UTF8_STRING) = "tïtle \\"q\\" back\\\\slash 中文"
WM_NAME(COMPOUND_TEXT) = "tïtle "q" back\\slash 中文"
_NET_WM_PID(CARDINAL) = 16390
_NET_WM_STATE(ATOM) = 
_NET_FRAME_EXTENTS(CARDINAL) = 1, 1, 20, 5
_NET_WM_WINDOW_TYPE:  not found.
WM_CLASS(STRING) = "xterm", "XTerm"
`;
/** The same window with the `C` locale: xprop falls back to octal escapes. */
const PROPS_XTERM_UNICODE_C_LOCALE = `_NET_WM_NAME:  not found.
_NET_WM_VISIBLE_NAME(UTF8_STRING) = "t\\303\\257tle \\"q\\" back\\\\slash \\344\\270\\255\\346\\226\\207"
WM_NAME(COMPOUND_TEXT) = "t\\357tle \\"q\\" back\\\\slash \\033$(BCfJ8"
_NET_WM_PID(CARDINAL) = 16390
_NET_WM_STATE(ATOM) = 
_NET_FRAME_EXTENTS(CARDINAL) = 1, 1, 20, 5
_NET_WM_WINDOW_TYPE:  not found.
WM_CLASS(STRING) = "xterm", "XTerm"
`;
/** _NET_WM_NAME set to 'naïve "quoted" \path\123 新建文档 – Editor', then maximized. */
const PROPS_MAXIMIZED = `_NET_WM_NAME(UTF8_STRING) = "naïve \\"quoted\\" \\\\path\\\\123 新建文档 – Editor"
_NET_WM_VISIBLE_NAME(UTF8_STRING) = "naïve \\"quoted\\" \\\\path\\\\123 新建文档 – Editor"
WM_NAME(STRING) = "plain"
_NET_WM_PID(CARDINAL) = 16392
_NET_WM_STATE(ATOM) = _NET_WM_STATE_MAXIMIZED_VERT, _NET_WM_STATE_MAXIMIZED_HORZ
_NET_FRAME_EXTENTS(CARDINAL) = 0, 0, 19, 0
_NET_WM_WINDOW_TYPE:  not found.
WM_CLASS(STRING) = "xterm", "XTerm"
`;
/** xterm -T '' (no title): openbox shows "Unnamed Window". */
const PROPS_UNNAMED = `_NET_WM_NAME:  not found.
_NET_WM_VISIBLE_NAME(UTF8_STRING) = "Unnamed Window"
WM_NAME(STRING) = 
_NET_WM_PID(CARDINAL) = 16394
_NET_WM_STATE(ATOM) = 
_NET_FRAME_EXTENTS(CARDINAL) = 1, 1, 20, 5
_NET_WM_WINDOW_TYPE:  not found.
WM_CLASS(STRING) = "my.name", "MyClass"
`;
/** The same window minimized, with a Latin-1 WM_NAME (bytes "caf\xe9 \ "x"") and a weird WM_CLASS. */
const PROPS_MINIMIZED_LATIN1 = `_NET_WM_NAME:  not found.
WM_NAME(STRING) = "café \\ "x""
_NET_WM_PID(CARDINAL) = 16394
_NET_WM_STATE(ATOM) = _NET_WM_STATE_HIDDEN
_NET_FRAME_EXTENTS(CARDINAL) = 1, 1, 20, 5
_NET_WM_WINDOW_TYPE:  not found.
WM_CLASS(STRING) = "we\\"ird\\\\cls \\303\\251"
`;

/** `xwininfo -root -tree`, trimmed: openbox's own windows, then three frames each holding a client. */
const TREE = `
xwininfo: Window id: 0x50d (the root window) (has no name)

  Root window id: 0x50d (the root window) (has no name)
  Parent window id: 0x0 (none)
     14 children:
     0x20020b "Openbox": ("" (none))  1x1+-100+-100  +-100+-100
     0x20025f (has no name): ()  1x1+0+0  +0+0
        1 child:
        0x200260 (has no name): ()  1x1+0+0  +1+1
     0x200256 (has no name): ("OPENBOX_FOCUS_CYCLE_POPUP" "OPENBOX_FOCUS_CYCLE_POPUP")  1x1+0+0  +0+0
        3 children:
        0x200259 (has no name): ()  1x1+0+0  +1+1
     0x200331 (has no name): ()  1280x800+0+0  +0+0
        56 children:
        0x60000c "naïve "quoted" \\path\\123 新建文档 – Editor": ("xterm" "XTerm")  1280x781+0+19  +0+19
           1 child:
           0x600018 (has no name): ()  1280x781+0+0  +0+19
        0x20037d (has no name): ()  1x1+0+0  +0+0
        0x20033c (has no name): ()  1280x18+0+1  +0+1
           12 children:
           0x200350 (has no name): ()  12x12+1232+3  +1232+4
     0x2002d4 (has no name): ()  486x341+-50+-30  +-50+-30
        56 children:
        0x40000c (name in unsupported encoding COMPOUND_TEXT): ("xterm" "XTerm")  484x316+1+20  +-49+-10
           1 child:
           0x400018 (has no name): ()  484x316+0+0  +-49+-10
        0x2002df (has no name): ()  484x18+1+1  +-49+-29
           12 children:
           0x2002f3 (has no name): ()  12x12+436+3  +387+-26
     0x200261 (has no name): ()  186x94+10+600  +10+600
        56 children:
        0x80000c "café": ("my.name" "MyClass")  184x69+1+20  +11+620
           1 child:
           0x800018 (has no name): ()  184x69+0+0  +11+620
`;

/** `xwininfo -id 0x40000c`: the client of the frame at -50,-30. */
const XWININFO = `
xwininfo: Window id: 0x40000c (name in unsupported encoding COMPOUND_TEXT)

  Absolute upper-left X:  -49
  Absolute upper-left Y:  -10
  Relative upper-left X:  1
  Relative upper-left Y:  20
  Width: 484
  Height: 316
  Depth: 24
  Visual: 0x21
  Visual Class: TrueColor
  Border width: 0
  Class: InputOutput
  Colormap: 0x20 (installed)
  Bit Gravity State: NorthWestGravity
  Window Gravity State: NorthWestGravity
  Backing Store State: NotUseful
  Save Under State: no
  Map State: IsViewable
  Override Redirect State: no
  Corners:  +-49+-10  -845+-10  -845-494  +-49-494
  -geometry 80x24+-50+-30

`;

function caught(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

describe('normalizeWindowId', () => {
  it('spells every form of an id the way _NET_CLIENT_LIST does', () => {
    expect(normalizeWindowId('0x0060000c')).toBe('0x60000c');
    expect(normalizeWindowId('0x60000C')).toBe('0x60000c');
    expect(normalizeWindowId(' 6291468 ')).toBe('0x60000c');
    expect(normalizeWindowId('0x0')).toBe('0x0');
  });

  it('rejects what is not an id', () => {
    for (const bad of ['', 'xterm', '0x', '0xZZ', '-5', '1.5']) {
      expect(caught(() => normalizeWindowId(bad)).code).toBe('INVALID_INPUT');
    }
  });
});

describe('parseRootProperties', () => {
  it('reads the managed windows and the focused one', () => {
    expect(parseRootProperties(ROOT)).toEqual({ clients: ['0x80000c', '0x40000c', '0x60000c'], active: '0x60000c' });
  });

  it('reads an empty list with no focused window', () => {
    expect(parseRootProperties(ROOT_EMPTY)).toEqual({ clients: [], active: null });
  });

  it('treats a focused window 0x0 as none', () => {
    expect(parseRootProperties(ROOT.replace('# 0x60000c', '# 0x0')).active).toBeNull();
  });

  it('says UNAVAILABLE when no window manager ever ran on the display', () => {
    const error = caught(() => parseRootProperties(ROOT_NO_WM));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toMatch(/window manager/u);
  });

  it('says UNAVAILABLE when the window manager left (the atom exists, the property does not)', () => {
    const text = `_NET_CLIENT_LIST:  not found.\n_NET_ACTIVE_WINDOW:  not found.\n`;
    expect(caught(() => parseRootProperties(text)).code).toBe('UNAVAILABLE');
  });
});

describe('decodeXpropString', () => {
  it('unescapes UTF8_STRING values (_NET_WM_NAME, _NET_WM_VISIBLE_NAME)', () => {
    expect(
      decodeXpropString('"naïve \\"quoted\\" \\\\path\\\\123 新建文档 – Editor"', '_NET_WM_NAME', 'UTF8_STRING'),
    ).toBe('naïve "quoted" \\path\\123 新建文档 – Editor');
    expect(decodeXpropString('"v \\"q\\" b\\\\s"', '_NET_WM_VISIBLE_NAME', 'UTF8_STRING')).toBe('v "q" b\\s');
  });

  it('decodes octal UTF-8 bytes, as xprop prints them outside a UTF-8 locale', () => {
    expect(
      decodeXpropString(
        '"t\\303\\257tle \\"q\\" back\\\\slash \\344\\270\\255\\346\\226\\207"',
        '_NET_WM_VISIBLE_NAME',
        'UTF8_STRING',
      ),
    ).toBe('tïtle "q" back\\slash 中文');
  });

  it('decodes \\t and \\n, and skips the note xprop puts before invalid UTF-8', () => {
    // _NET_WM_NAME set to the bytes "n tab\there nl\nx bad\xff é".
    const value = '<Invalid UTF-8 string: Forbidden value> "n tab\\there nl\\nx bad\\377 \\303\\251"';
    expect(decodeXpropString(value, '_NET_WM_NAME', 'UTF8_STRING')).toBe('n tab\there nl\nx bad\uFFFD é');
  });

  it('reads WM_NAME (text format) as printed: quotes and backslashes are not escaped, whatever the type', () => {
    expect(decodeXpropString('"tïtle "q" back\\slash 中文"', 'WM_NAME', 'COMPOUND_TEXT')).toBe(
      'tïtle "q" back\\slash 中文',
    );
    expect(decodeXpropString('"café \\ "x""', 'WM_NAME', 'STRING')).toBe('café \\ "x"');
    expect(decodeXpropString('"ic "q" b\\s"', 'WM_ICON_NAME', 'STRING')).toBe('ic "q" b\\s');
  });

  it('decodes only the octal escapes of non-printable characters in WM_NAME', () => {
    // WM_NAME (UTF8_STRING) set to the bytes 'u8 a\123 tab\there "q" 中文': "\123" is typed text.
    expect(decodeXpropString('"u8 a\\123 tab\\011here "q" 中文"', 'WM_NAME', 'UTF8_STRING')).toBe(
      'u8 a\\123 tab\there "q" 中文',
    );
    // WM_NAME (STRING) set to the Latin-1 bytes 'lat \xe9 "q" b\s \x7f'.
    expect(decodeXpropString('"lat é "q" b\\s \\177"', 'WM_NAME', 'STRING')).toBe('lat é "q" b\\s \x7f');
    // WM_NAME (UTF8_STRING) holding invalid UTF-8.
    expect(decodeXpropString('"bad \\377 "q" b\\s"', 'WM_NAME', 'UTF8_STRING')).toBe('bad \uFFFD "q" b\\s');
  });

  it('reads Latin-1 bytes of a STRING property that are not UTF-8 as Latin-1', () => {
    expect(decodeXpropString('"caf\\351"', 'WM_CLASS', 'STRING')).toBe('café');
    expect(decodeXpropString('"caf\\303\\251"', 'WM_CLASS', 'STRING')).toBe('café');
  });

  it('gives an empty string for an empty or unquoted value', () => {
    expect(decodeXpropString('', 'WM_NAME', 'STRING')).toBe('');
    expect(decodeXpropString('""', '_NET_WM_NAME', 'UTF8_STRING')).toBe('');
  });
});

describe('parseWindowProperties', () => {
  it('takes the title from _NET_WM_VISIBLE_NAME before the COMPOUND_TEXT WM_NAME', () => {
    expect(parseWindowProperties(PROPS_XTERM_UNICODE)).toEqual({
      title: 'tïtle "q" back\\slash 中文',
      pid: 16390,
      state: [],
      frameExtents: [1, 1, 20, 5],
      types: [],
      wmClass: ['xterm', 'XTerm'],
    });
  });

  it('decodes the same title from the C locale output', () => {
    expect(parseWindowProperties(PROPS_XTERM_UNICODE_C_LOCALE).title).toBe('tïtle "q" back\\slash 中文');
  });

  it('prefers _NET_WM_NAME and reads the maximized state and the frame of a maximized window', () => {
    const properties = parseWindowProperties(PROPS_MAXIMIZED);
    expect(properties.title).toBe('naïve "quoted" \\path\\123 新建文档 – Editor');
    expect(properties.state).toEqual(['_NET_WM_STATE_MAXIMIZED_VERT', '_NET_WM_STATE_MAXIMIZED_HORZ']);
    expect(properties.frameExtents).toEqual([0, 0, 19, 0]);
  });

  it("uses the window manager's name for a window without a title", () => {
    const properties = parseWindowProperties(PROPS_UNNAMED);
    expect(properties.title).toBe('Unnamed Window');
    expect(properties.wmClass).toEqual(['my.name', 'MyClass']);
  });

  it('falls back to WM_NAME as printed, and reads HIDDEN and an escaped WM_CLASS', () => {
    const properties = parseWindowProperties(PROPS_MINIMIZED_LATIN1);
    expect(properties.title).toBe('café \\ "x"');
    expect(properties.state).toEqual(['_NET_WM_STATE_HIDDEN']);
    expect(properties.wmClass).toEqual(['we"ird\\cls é']);
  });

  it('reads window types, and gives null / zeros for what is missing', () => {
    const text = `_NET_WM_NAME(UTF8_STRING) = "panel"
_NET_WM_PID:  not found.
_NET_WM_STATE:  not found.
_NET_FRAME_EXTENTS:  not found.
_NET_WM_WINDOW_TYPE(ATOM) = _NET_WM_WINDOW_TYPE_DOCK
WM_CLASS:  not found.
`;
    expect(parseWindowProperties(text)).toEqual({
      title: 'panel',
      pid: null,
      state: [],
      frameExtents: [0, 0, 0, 0],
      types: ['_NET_WM_WINDOW_TYPE_DOCK'],
      wmClass: [],
    });
  });
});

describe('parseTree, parseXwininfo and outerBounds', () => {
  it("reads every window's absolute geometry, named or not, at negative positions too", () => {
    const tree = parseTree(TREE);
    expect(tree.get('0x60000c')).toEqual({ x: 0, y: 19, width: 1280, height: 781 });
    expect(tree.get('0x40000c')).toEqual({ x: -49, y: -10, width: 484, height: 316 });
    expect(tree.get('0x80000c')).toEqual({ x: 11, y: 620, width: 184, height: 69 });
    expect(tree.get('0x2002d4')).toEqual({ x: -50, y: -30, width: 486, height: 341 });
    expect(tree.get('0x20020b')).toEqual({ x: -100, y: -100, width: 1, height: 1 });
    expect(tree.get('0x2002f3')).toEqual({ x: 387, y: -26, width: 12, height: 12 });
    // The root window's header lines are not windows of the tree.
    expect(tree.has('0x50d')).toBe(false);
    expect(tree.size).toBe(19);
  });

  it('reads xwininfo -id', () => {
    expect(parseXwininfo(XWININFO)).toEqual({ x: -49, y: -10, width: 484, height: 316 });
  });

  it('fails clearly on output that is not xwininfo -id', () => {
    expect(caught(() => parseXwininfo('xwininfo: error: No such window with id 0x12345.')).code).toBe('TOOL_FAILED');
  });

  it('adds _NET_FRAME_EXTENTS to the client geometry: the frames in the tree', () => {
    const tree = parseTree(TREE);
    // Each client's outer bounds are exactly the openbox frame that holds it.
    expect(outerBounds(tree.get('0x40000c')!, [1, 1, 20, 5])).toEqual({ x: -50, y: -30, width: 486, height: 341 });
    expect(outerBounds(tree.get('0x80000c')!, [1, 1, 20, 5])).toEqual({ x: 10, y: 600, width: 186, height: 94 });
    expect(outerBounds(tree.get('0x60000c')!, [0, 0, 19, 0])).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
  });
});
