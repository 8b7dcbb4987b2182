import { describe, expect, it } from 'vitest';

import { isTerminalEmulator, isTerminalWindow, shellQuote, terminalLaunch } from './terminals.js';

describe('terminal windows', () => {
  it('are known by process name or window class, however the platform spells them', () => {
    for (const app of [
      'xterm',
      'gnome-terminal-server',
      'Gnome-terminal',
      'konsole',
      'xfce4-terminal',
      'Alacritty',
      'kitty',
      'tilix',
      'terminator',
      'URxvt',
      'st-256color',
      'wezterm-gui',
      'org.wezfurlong.wezterm',
      'foot',
      'Terminal',
      'iTerm2',
      'WindowsTerminal.exe',
      'conhost.exe',
      'OpenConsole.exe',
      'powershell.exe',
      'pwsh',
      'cmd.exe',
      'bash',
    ]) {
      // prettier-ignore
      expect(isTerminalWindow({ app }), app).toBe(true);
    }
    expect(isTerminalWindow({ app: 'python3', classes: ['terminator', 'Terminator'] })).toBe(true);
  });

  it('other apps are not terminals', () => {
    for (const app of ['gedit', 'firefox', 'code', 'libreoffice', 'Google-chrome', 'notepad.exe', 'TextEdit', '']) {
      expect(isTerminalWindow({ app }), app).toBe(false);
    }
  });

  it('shells are consoles to type into, but only emulators are launched with a command', () => {
    expect(isTerminalEmulator('xterm')).toBe(true);
    expect(isTerminalEmulator('/usr/bin/gnome-terminal.wrapper')).toBe(true);
    expect(isTerminalEmulator('bash')).toBe(false);
  });
});

describe('what a terminal is told to run', () => {
  it.each([
    [['-e', 'rm -rf ~'], 'rm -rf ~'],
    [['-e', 'rm', '-rf', '~'], 'rm -rf ~'],
    [['-title', 'x', '-geometry', '80x24', '-e', 'ls'], 'ls'],
    [['--', 'rm', '-rf', '~/a b'], "rm -rf ~/'a b'"],
    [['--command=rm -rf ~'], 'rm -rf ~'],
    [['-x', 'sh', '-c', 'id; ls'], "sh -c 'id; ls'"],
    [['rm', '-rf', '~'], 'rm -rf ~'],
    [['start', '--', 'rm', '-rf', '/'], 'rm -rf /'],
    [['new-tab', 'cmd', '/c', 'del x'], "cmd /c 'del x'"],
  ])('%j runs %s', (args, command) => {
    expect(terminalLaunch(args)).toEqual({ command, unknownOptions: [] });
  });

  it('a plain terminal runs a shell; options it does not know are named', () => {
    expect(terminalLaunch([])).toEqual({ unknownOptions: [] });
    expect(terminalLaunch(['--hold', '-title', 'build'])).toEqual({ unknownOptions: [] });
    expect(terminalLaunch(['--config-file', 'x.yml'])).toMatchObject({ unknownOptions: ['--config-file'] });
  });

  it('quotes arguments as literal words, but keeps a leading ~ a home folder', () => {
    expect(shellQuote('~/.ssh/id_rsa')).toBe('~/.ssh/id_rsa');
    expect(shellQuote('~')).toBe('~');
    expect(shellQuote('$(reboot)')).toBe("'$(reboot)'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});
