import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  applicationDirs,
  execToArgs,
  findDesktopEntry,
  parseDesktopEntry,
  readDesktopEntries,
  type DesktopEntry,
} from './desktop-entries.js';

/** Trimmed from Debian's /usr/share/applications/chromium.desktop (with its Desktop Action groups). */
const CHROMIUM = `[Desktop Entry]
Version=1.0
Name=Chromium Web Browser
Name[zh_CN]=Chromium 网页浏览器
GenericName=Web Browser
GenericName[zh_CN]=网页浏览器
Comment=Access the Internet
Exec=/usr/bin/chromium %U
Terminal=false
X-MultipleArgs=false
Type=Application
Icon=chromium
Categories=Network;WebBrowser;
MimeType=text/html;text/xml;application/xhtml_xml;x-scheme-handler/http;x-scheme-handler/https;
StartupWMClass=chromium
StartupNotify=true
Keywords=browser
Actions=new-window;new-private-window;

[Desktop Action new-window]
Name=Open a New Window
Exec=/usr/bin/chromium

[Desktop Action new-private-window]
Name=Open a New Window in incognito mode
Exec=/usr/bin/chromium --incognito
`;

/** Debian's vim.desktop, trimmed. */
const VIM = `[Desktop Entry]
Name[zh_CN]=Vim
Name=Vim
GenericName=Text Editor
TryExec=vim
Exec=vim %F
Terminal=true
Type=Application
Keywords=Text;editor;
Icon=gvim
Categories=Utility;TextEditor;
StartupNotify=false
MimeType=text/english;text/plain;text/x-makefile;text/x-c++hdr;
`;

/** Debian's notification-daemon.desktop: NoDisplay, but a real application. */
const NOTIFICATION_DAEMON = `[Desktop Entry]
Type=Application
Name=Notification Daemon
Name[zh_CN]=通知守护进程
Exec=/usr/lib/notification-daemon/notification-daemon
Terminal=false
Categories=
NoDisplay=true
`;

const APP: Pick<DesktopEntry, 'name' | 'file'> = {
  name: 'My App',
  file: '/usr/share/applications/my-app.desktop',
};

describe('parseDesktopEntry', () => {
  it('reads names in every language and ignores the Desktop Action groups', () => {
    expect(parseDesktopEntry('chromium', '/usr/share/applications/chromium.desktop', CHROMIUM)).toEqual({
      id: 'chromium',
      file: '/usr/share/applications/chromium.desktop',
      name: 'Chromium Web Browser',
      names: ['Chromium Web Browser', 'Chromium 网页浏览器', 'Web Browser', '网页浏览器'],
      exec: '/usr/bin/chromium %U',
      terminal: false,
    });
  });

  it('reads Terminal=true and keeps an entry with TryExec (a missing program is reported at launch)', () => {
    const vim = parseDesktopEntry('vim', '/usr/share/applications/vim.desktop', VIM);
    expect(vim?.terminal).toBe(true);
    expect(vim?.exec).toBe('vim %F');
    expect(vim?.names).toEqual(['Vim', 'Vim', 'Text Editor']);
  });

  it('keeps NoDisplay entries: hidden from menus, yet launchable by name', () => {
    expect(parseDesktopEntry('notification-daemon', '/x.desktop', NOTIFICATION_DAEMON)?.name).toBe(
      'Notification Daemon',
    );
  });

  it('drops Hidden entries (deleted by the user), other types, and entries without Name or Exec', () => {
    expect(parseDesktopEntry('vim', '/x.desktop', `${VIM}Hidden=true\n`)).toBeUndefined();
    expect(parseDesktopEntry('l', '/x.desktop', '[Desktop Entry]\nType=Link\nName=Site\nURL=https://e.x\n')).toBe(
      undefined,
    );
    expect(parseDesktopEntry('d', '/x.desktop', '[Desktop Entry]\nType=Directory\nName=Games\nExec=x\n')).toBe(
      undefined,
    );
    expect(parseDesktopEntry('n', '/x.desktop', '[Desktop Entry]\nType=Application\nExec=x\n')).toBeUndefined();
    expect(parseDesktopEntry('e', '/x.desktop', '[Desktop Entry]\nType=Application\nName=X\n')).toBeUndefined();
  });

  it('reads only the [Desktop Entry] group, with comments, blank lines, CRLF and spaces around =', () => {
    const text =
      '# comment\r\n[Other Group]\r\nName=Wrong\r\n\r\n[Desktop Entry]\r\n# Name=Commented\r\nName = Right \r\nExec= right %f\r\n';
    const parsed = parseDesktopEntry('r', '/r.desktop', text);
    expect(parsed?.name).toBe('Right');
    expect(parsed?.exec).toBe('right %f');
  });

  it('unescapes \\s \\n \\t \\r \\\\ in names', () => {
    const parsed = parseDesktopEntry('e', '/e.desktop', '[Desktop Entry]\nName=A\\sB\\\\s\\tC\nExec=x\n');
    expect(parsed?.name).toBe('A B\\s\tC');
  });
});

describe('execToArgs', () => {
  const file = '/usr/share/applications/my-app.desktop';

  it('puts the arguments at %F / %U, or at the end when there is no field code', () => {
    expect(execToArgs('vim %F', APP, ['a.txt', 'b.txt'])).toEqual(['vim', 'a.txt', 'b.txt']);
    expect(execToArgs('/usr/bin/chromium %U', APP, [])).toEqual(['/usr/bin/chromium']);
    expect(execToArgs('app --x %U --y', APP, ['u'])).toEqual(['app', '--x', 'u', '--y']);
    expect(execToArgs('xterm', APP, ['-e', 'top'])).toEqual(['xterm', '-e', 'top']);
  });

  it('puts the arguments at %f / %u only once', () => {
    expect(execToArgs('app %f %u', APP, ['one'])).toEqual(['app', 'one']);
    expect(execToArgs('app --file=%f', APP, ['one'])).toEqual(['app', '--file=one']);
  });

  it('expands %c to the name and %k to the desktop file, drops %i and deprecated codes, keeps %%', () => {
    expect(execToArgs('app --class=%c %k %i %d %D %n %N %v %m 100%%', APP, [])).toEqual([
      'app',
      '--class=My App',
      file,
      '100%',
    ]);
    expect(execToArgs('app %c', APP, [])).toEqual(['app', 'My App']);
    expect(execToArgs('app --desktop-file=%k', APP, [])).toEqual(['app', `--desktop-file=${file}`]);
  });

  it('follows the quoting rules: double quotes, with \\" \\` \\$ \\\\ escaped inside', () => {
    // As written in the file, where the string escapes apply first (\\\\ is one backslash for the quoting).
    const exec = 'sh -c "echo \\\\"hi there\\\\" \\\\$HOME \\\\`id\\\\` a\\\\\\\\b" "" x';
    expect(execToArgs(exec, APP, [])).toEqual(['sh', '-c', 'echo "hi there" $HOME `id` a\\b', '', 'x']);
  });

  it('keeps spaces inside quotes and splits on any run of blanks outside', () => {
    expect(execToArgs('"/opt/My App/bin/app"   --flag\t%U', APP, ['f'])).toEqual([
      '/opt/My App/bin/app',
      '--flag',
      'f',
    ]);
  });
});

describe('findDesktopEntry', () => {
  const entries = [
    parseDesktopEntry('chromium', '/a/chromium.desktop', CHROMIUM)!,
    parseDesktopEntry('vim', '/a/vim.desktop', VIM)!,
    parseDesktopEntry('notification-daemon', '/a/notification-daemon.desktop', NOTIFICATION_DAEMON)!,
  ];

  it('finds by Name ignoring case, by desktop id (with or without .desktop), and by any localised name', () => {
    expect(findDesktopEntry(entries, 'chromium web browser')?.id).toBe('chromium');
    expect(findDesktopEntry(entries, ' Chromium.desktop ')?.id).toBe('chromium');
    expect(findDesktopEntry(entries, 'Chromium 网页浏览器')?.id).toBe('chromium');
    expect(findDesktopEntry(entries, '通知守护进程')?.id).toBe('notification-daemon');
    expect(findDesktopEntry(entries, 'text editor')?.id).toBe('vim');
  });

  it('prefers an exact Name over another entry whose GenericName is the same', () => {
    const browser = parseDesktopEntry('browser', '/a/browser.desktop', '[Desktop Entry]\nName=Web Browser\nExec=b\n')!;
    expect(findDesktopEntry([...entries, browser], 'web browser')?.id).toBe('browser');
  });

  it('finds nothing for a partial name', () => {
    expect(findDesktopEntry(entries, 'Chrom')).toBeUndefined();
  });
});

describe('applicationDirs', () => {
  it('defaults to ~/.local/share, /usr/local/share and /usr/share', () => {
    expect(applicationDirs({ HOME: '/home/ann' })).toEqual([
      '/home/ann/.local/share/applications',
      '/usr/local/share/applications',
      '/usr/share/applications',
    ]);
  });

  it('uses XDG_DATA_HOME first, then XDG_DATA_DIRS in order, without duplicates', () => {
    expect(
      applicationDirs({
        HOME: '/home/ann',
        XDG_DATA_HOME: '/data/home',
        XDG_DATA_DIRS: '/usr/share/gnome:/var/lib/flatpak/exports/share::/usr/share:/usr/share/',
      }),
    ).toEqual([
      '/data/home/applications',
      '/usr/share/gnome/applications',
      '/var/lib/flatpak/exports/share/applications',
      '/usr/share/applications',
    ]);
  });

  it('ignores relative paths, as the XDG Base Directory spec requires', () => {
    expect(applicationDirs({ HOME: '/home/ann', XDG_DATA_HOME: 'share', XDG_DATA_DIRS: 'rel:/opt/share' })).toEqual([
      '/home/ann/.local/share/applications',
      '/opt/share/applications',
    ]);
    expect(applicationDirs({ HOME: '/home/ann', XDG_DATA_DIRS: 'only/relative' })).toEqual([
      '/home/ann/.local/share/applications',
      '/usr/local/share/applications',
      '/usr/share/applications',
    ]);
  });
});

describe('readDesktopEntries', () => {
  let root: string;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'nextai-desktop-'));
    const write = async (file: string, text: string) => {
      await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await fs.writeFile(path.join(root, file), text);
    };
    await write('home/applications/vim.desktop', VIM.replace('Name=Vim', 'Name=My Vim'));
    await write(
      'home/applications/chromium.desktop',
      CHROMIUM.replace('Type=Application', 'Type=Application\nHidden=true'),
    );
    await write('system/applications/vim.desktop', VIM);
    await write('system/applications/chromium.desktop', CHROMIUM);
    await write('system/applications/kde4/konsole.desktop', '[Desktop Entry]\nName=Konsole\nExec=konsole\n');
    await write('system/applications/readme.txt', 'not an entry');
  });

  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('reads subdirectories as prefixed ids, and lets an earlier directory shadow a later one', async () => {
    const entries = await readDesktopEntries([
      path.join(root, 'home/applications'),
      path.join(root, 'missing/applications'),
      path.join(root, 'system/applications'),
    ]);
    const byId = new Map(entries.map((candidate) => [candidate.id, candidate]));
    expect([...byId.keys()].sort()).toEqual(['kde4-konsole', 'vim']);
    // The user's vim.desktop wins; the user's Hidden chromium.desktop hides the system one.
    expect(byId.get('vim')?.name).toBe('My Vim');
  });
});
