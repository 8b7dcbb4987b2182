import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LOAD_NATIVE, NATIVE_CSHARP, NATIVE_TYPE } from './native.js';

const run = promisify(execFile);

// Mono's C# compiler (Debian package mono-mcs, installed by scripts/install-system-deps.sh) checks
// the helper at C# 5, the language Windows PowerShell 5.1's Add-Type compiles. The Win32 calls
// cannot run here; the struct layouts SendInput depends on can, through Mono's marshaller.
describe('the C# Win32 helper', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await fs.mkdtemp(path.join(os.tmpdir(), 'nextai-native-'));
  });
  afterAll(async () => {
    await fs.rm(directory, { recursive: true, force: true });
  });

  it('compiles as C# 5 without warnings that matter', async () => {
    const source = path.join(directory, 'native.cs');
    await fs.writeFile(source, NATIVE_CSHARP);
    const { stdout, stderr } = await run('mcs', [
      '-langversion:5',
      '-warnaserror+',
      '-nowarn:169,414,649',
      '-target:library',
      `-out:${path.join(directory, 'native.dll')}`,
      source,
    ]);
    expect(`${stdout}${stderr}`).not.toMatch(/error/i);
  });

  it('lays INPUT out as Windows expects on 64-bit (40 bytes, union at offset 8)', async () => {
    const probe = path.join(directory, 'probe.cs');
    await fs.writeFile(
      probe,
      `${NATIVE_CSHARP}
      public static class Probe {
        public static void Main() {
          System.Type input = typeof(NextAI.Win32).GetNestedType("INPUT", System.Reflection.BindingFlags.NonPublic);
          System.Type keyboard = typeof(NextAI.Win32).GetNestedType("KEYBDINPUT", System.Reflection.BindingFlags.NonPublic);
          System.Console.WriteLine(System.Runtime.InteropServices.Marshal.SizeOf(input) + " " +
            System.Runtime.InteropServices.Marshal.OffsetOf(input, "u") + " " +
            System.Runtime.InteropServices.Marshal.SizeOf(keyboard) + " " + System.IntPtr.Size);
        }
      }`,
    );
    const exe = path.join(directory, 'probe.exe');
    await run('mcs', ['-langversion:5', `-out:${exe}`, probe]);
    const { stdout } = await run('mono', [exe]);
    expect(stdout.trim()).toBe('40 8 24 8');
  });

  it('is loaded once per PowerShell process from a here-string nothing in the source can end early', () => {
    expect(NATIVE_CSHARP.split('\n').some((line) => line.startsWith("'@"))).toBe(false);
    expect(LOAD_NATIVE).toContain(`if (-not ('${NATIVE_TYPE}' -as [type]))`);
    expect(LOAD_NATIVE).toContain("Add-Type -TypeDefinition @'\n");
    expect(LOAD_NATIVE).toContain(`[${NATIVE_TYPE}]::EnsureDpiAware()`);
  });

  it('marks the failures scripts map to fixes', () => {
    expect(NATIVE_CSHARP).toContain('Data["nextaiCode"] = "BLOCKED_INPUT"');
    expect(NATIVE_CSHARP).toContain('Data["nextaiCode"] = "NOT_FOUND"');
    expect(NATIVE_CSHARP).toContain('SetProcessDpiAwarenessContext(new IntPtr(-4))');
    expect(NATIVE_CSHARP).toContain('KEYEVENTF_UNICODE');
  });
});
