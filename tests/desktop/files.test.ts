import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dataPaths } from '../../native-host/src/core/paths.js';
import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { findExecutable } from '../../native-host/src/platform/linux/windows.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createFileHandlers } from '../../native-host/src/tools/files/index.js';
import { callTool, testServices } from '../../native-host/src/tools/test-support.js';

/**
 * delete_file through the real Linux desktop adapter into a freedesktop trash, side by side with
 * GLib's own `gio trash` (what GNOME Files uses) in the same trash: each respects the other's
 * entries when naming, both write the same .trashinfo, and everything restores from its
 * .trashinfo alone. No X server is needed for the trash.
 */
// scripts/install-system-deps.sh installs gio (libglib2.0-bin); without it this test fails, it is not skipped.
const gio = await findExecutable('gio', process.env.PATH);
let root: string;
let home: string;
let dataHome: string;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-desktop-files-')));
  home = path.join(root, 'home');
  dataHome = path.join(root, 'data');
  fs.mkdirSync(path.join(home, '.nextai-agent'), { recursive: true });
  const desktop = createLinuxDesktop({ XDG_DATA_HOME: dataHome }, home);
  const security = securityConfigSchema.parse({});
  handlers = createFileHandlers({
    ...testServices(desktop),
    paths: dataPaths(path.join(home, '.nextai-agent'), 'linux', 'test'),
    homeDir: home,
    security: () => security,
  }).handlers;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const trash = () => path.join(dataHome, 'Trash');
const info = (name: string) => fs.readFileSync(path.join(trash(), 'info', `${name}.trashinfo`), 'utf8');

function restore(name: string): string {
  const text = info(name);
  const original = decodeURIComponent(/^Path=(.*)$/m.exec(text)?.[1] ?? '');
  fs.renameSync(path.join(trash(), 'files', name), original);
  fs.rmSync(path.join(trash(), 'info', `${name}.trashinfo`));
  return original;
}

describe('delete_file into the freedesktop trash, next to gio', () => {
  it('shares one trash with gio trash: names, .trashinfo format and restore agree', async () => {
    const file = path.join(home, 'report «draft» +1.txt');
    const trashWith = {
      ours: async () =>
        ((await callTool('delete_file', handlers.delete_file, { path: file })) as { deleted_to: string }).deleted_to,
      gio: async () => {
        await runCommand(gio as string, ['trash', file], { env: { XDG_DATA_HOME: dataHome, HOME: home } });
      },
    };

    fs.writeFileSync(file, 'first, by NextAI');
    expect(await trashWith.ours()).toBe(path.join(trash(), 'files', 'report «draft» +1.txt'));
    expect(gio, 'gio (Debian package libglib2.0-bin) is needed for this test').toBeTruthy();
    fs.writeFileSync(file, 'second, by gio');
    await trashWith.gio();
    fs.writeFileSync(file, 'third, by NextAI');
    expect(await trashWith.ours()).toBe(path.join(trash(), 'files', 'report «draft» +1.3.txt'));

    // gio took the next free name after ours, and we after gio's.
    expect(fs.readdirSync(path.join(trash(), 'files')).sort()).toEqual([
      'report «draft» +1.2.txt',
      'report «draft» +1.3.txt',
      'report «draft» +1.txt',
    ]);
    // Same fields, same Path encoding, as GLib writes them.
    const shape = (text: string) => text.replace(/DeletionDate=.*/, 'DeletionDate=…');
    expect(shape(info('report «draft» +1.txt'))).toBe(shape(info('report «draft» +1.2.txt')));
    expect(info('report «draft» +1.txt')).toMatch(/^DeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/m);

    for (const [name, content] of [
      ['report «draft» +1.2.txt', 'second, by gio'],
      ['report «draft» +1.txt', 'first, by NextAI'],
    ] as const) {
      expect(restore(name)).toBe(file);
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
      fs.rmSync(file);
    }
  });
});
