// Command construction and parsing only: none of this has been run on a real Windows machine.
// The screen fixtures are what DISPLAYS_SCRIPT's ConvertTo-Json -Compress prints.
import { describe, expect, it } from 'vitest';

import {
  DISPLAYS_SCRIPT,
  describeWindowsOs,
  parseWindowsScreens,
  powershellCommand,
  windowsDriveCandidates,
} from './windows.js';

describe('Windows version', () => {
  it('calls build 22000 and later Windows 11 although ProductName says Windows 10', () => {
    expect(describeWindowsOs('Windows 10 Pro', '10.0.22631')).toEqual({
      name: 'Windows 11 Pro (10.0.22631)',
      version: '10.0.22631',
    });
    expect(describeWindowsOs('Windows 10 Home', '10.0.19045')).toEqual({
      name: 'Windows 10 Home (10.0.19045)',
      version: '10.0.19045',
    });
  });

  it('leaves Windows Server names alone', () => {
    expect(describeWindowsOs('Windows Server 2022 Standard', '10.0.20348').name).toBe(
      'Windows Server 2022 Standard (10.0.20348)',
    );
    expect(describeWindowsOs('Windows Server 2025 Datacenter', '10.0.26100').name).toBe(
      'Windows Server 2025 Datacenter (10.0.26100)',
    );
    expect(describeWindowsOs('', '10.0.26100').name).toBe('Windows (10.0.26100)');
  });
});

describe('PowerShell command', () => {
  it('sends the script as UTF-16LE base64 without a profile or prompts', () => {
    const { command, args } = powershellCommand(DISPLAYS_SCRIPT);
    expect(command).toBe('powershell.exe');
    expect(args.slice(0, -1)).toEqual(['-NoProfile', '-NonInteractive', '-EncodedCommand']);
    expect(Buffer.from(args.at(-1) ?? '', 'base64').toString('utf16le')).toBe(DISPLAYS_SCRIPT);
  });

  it('reads every screen with Windows Forms and both DPI figures', () => {
    expect(DISPLAYS_SCRIPT).toContain('Add-Type -AssemblyName System.Windows.Forms, System.Drawing');
    expect(DISPLAYS_SCRIPT).toContain('[System.Windows.Forms.Screen]::AllScreens');
    expect(DISPLAYS_SCRIPT).toContain('AppliedDPI');
    expect(DISPLAYS_SCRIPT).toContain('$graphics.DpiX');
    expect(DISPLAYS_SCRIPT).toMatch(/ConvertTo-Json -Compress -Depth 3 -InputObject/);
    expect(DISPLAYS_SCRIPT).not.toContain('"');
  });
});

describe('screens', () => {
  it('scales the bounds a DPI-unaware PowerShell sees back to pixels', () => {
    const output =
      '{"processDpi":96,"systemDpi":144,"screens":[{"name":"\\\\\\\\.\\\\DISPLAY1","x":0,"y":0,"width":1707,"height":960,"primary":true},{"name":"\\\\\\\\.\\\\DISPLAY2","x":1707,"y":-120,"width":1280,"height":1024,"primary":false}]}\r\n';
    expect(parseWindowsScreens(output)).toEqual([
      { id: 0, name: '\\\\.\\DISPLAY1', width: 1707, height: 960, x: 0, y: 0, scale: 1.5, primary: true },
      { id: 1, name: '\\\\.\\DISPLAY2', width: 1280, height: 1024, x: 1707, y: -120, scale: 1.5, primary: false },
    ]);
  });

  it('uses 1 when the bounds are already pixels or the DPI is unknown', () => {
    const aware =
      '{"processDpi":120,"systemDpi":120,"screens":[{"name":"\\\\\\\\.\\\\DISPLAY1","x":0,"y":0,"width":2560,"height":1440,"primary":true}]}';
    expect(parseWindowsScreens(aware)[0]?.scale).toBe(1);
    const noRegistryValue =
      '{"processDpi":96,"systemDpi":null,"screens":[{"name":"\\\\\\\\.\\\\DISPLAY1","x":0,"y":0,"width":1920,"height":1080,"primary":true}]}';
    expect(parseWindowsScreens(noRegistryValue)).toEqual([
      { id: 0, name: '\\\\.\\DISPLAY1', width: 1920, height: 1080, x: 0, y: 0, scale: 1, primary: true },
    ]);
  });

  it('rejects output of another shape', () => {
    expect(() => parseWindowsScreens('{"Bounds":{"Width":1920}}')).toThrow();
  });
});

describe('drives', () => {
  it('tries every letter at its root', () => {
    const drives = windowsDriveCandidates();
    expect(drives).toHaveLength(26);
    expect(drives[0]).toEqual({ drive: 'A:', path: 'A:\\' });
    expect(drives[2]).toEqual({ drive: 'C:', path: 'C:\\' });
    expect(drives[25]).toEqual({ drive: 'Z:', path: 'Z:\\' });
  });
});
