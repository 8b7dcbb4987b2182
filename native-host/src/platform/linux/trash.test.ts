import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLinuxTrash, homeTrashDirectory, localTimestamp, numberedName, trashInfo } from './trash.js';
import { failureOf } from '../../tools/test-support.js';

let root: string;
let home: string;
let dataHome: string;
let trashDir: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-trash-')));
  home = path.join(root, 'home');
  dataHome = path.join(root, 'data');
  trashDir = path.join(dataHome, 'Trash');
  fs.mkdirSync(home, { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const trash = () => createLinuxTrash({ XDG_DATA_HOME: dataHome }, home);

/** Restores a trashed item the way a file manager does, from its .trashinfo alone. */
function restore(trashed: string): string {
  const trash = path.dirname(path.dirname(trashed));
  const name = path.basename(trashed);
  const infoFile = path.join(trash, 'info', `${name}.trashinfo`);
  const lines = fs.readFileSync(infoFile, 'utf8').split('\n');
  expect(lines[0]).toBe('[Trash Info]');
  const recorded = lines.find((line) => line.startsWith('Path='))?.slice('Path='.length) ?? '';
  const decoded = decodeURIComponent(recorded);
  // Relative paths (top-directory trashes) are relative to the folder holding the trash.
  const original = path.isAbsolute(decoded) ? decoded : path.join(path.dirname(trash), decoded);
  fs.renameSync(trashed, original);
  fs.rmSync(infoFile);
  return original;
}

describe('Linux trash (freedesktop.org Trash specification)', () => {
  it('moves a file into $XDG_DATA_HOME/Trash with a .trashinfo, and it restores with the same content', async () => {
    const file = path.join(home, 'report 100% «final».txt');
    fs.writeFileSync(file, 'the content');
    const { trashedTo } = await trash().moveToTrash(file);
    expect(trashedTo).toBe(path.join(trashDir, 'files', 'report 100% «final».txt'));
    expect(fs.existsSync(file)).toBe(false);

    const info = fs.readFileSync(path.join(trashDir, 'info', 'report 100% «final».txt.trashinfo'), 'utf8');
    expect(info).toMatch(/^\[Trash Info\]\nPath=\S+\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$/);
    // Percent-encoded: no raw spaces, % or non-ASCII in the value.
    expect(info).toContain('report%20100%25%20%C2%ABfinal%C2%BB.txt');

    expect(restore(trashedTo)).toBe(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('the content');
  });

  it('creates the trash folders 0700 and moves whole folders', async () => {
    const folder = path.join(home, 'project');
    fs.mkdirSync(path.join(folder, 'src'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'src/a.ts'), 'a');
    const { trashedTo } = await trash().moveToTrash(folder);
    expect(fs.statSync(path.join(trashDir, 'files')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(trashDir, 'info')).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(path.join(trashedTo, 'src/a.ts'), 'utf8')).toBe('a');
    restore(trashedTo);
    expect(fs.readFileSync(path.join(folder, 'src/a.ts'), 'utf8')).toBe('a');
  });

  it('gives same-named files distinct names, also when trashed at the same moment', async () => {
    const names: string[] = [];
    for (const content of ['first', 'second']) {
      const file = path.join(home, 'notes.txt');
      fs.writeFileSync(file, content);
      names.push((await trash().moveToTrash(file)).trashedTo);
    }
    const folders = ['a', 'b', 'c'].map((name) => path.join(home, name));
    const together = await Promise.all(
      folders.map((folder) => {
        fs.mkdirSync(folder);
        fs.writeFileSync(path.join(folder, 'notes.txt'), folder);
        return trash().moveToTrash(path.join(folder, 'notes.txt'));
      }),
    );
    const all = [...names, ...together.map((entry) => entry.trashedTo)].map((file) => path.basename(file));
    expect(all.slice(0, 2)).toEqual(['notes.txt', 'notes.2.txt']);
    expect(new Set(all).size).toBe(5);
    for (const name of all) expect(fs.existsSync(path.join(trashDir, 'info', `${name}.trashinfo`))).toBe(true);
    // Each restores to where it came from, with its own content.
    for (const entry of together) restore(entry.trashedTo);
    for (const folder of folders) expect(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8')).toBe(folder);
    expect(fs.readFileSync(names[1] as string, 'utf8')).toBe('second');
  });

  it('skips a name whose files/ entry is a leftover without .trashinfo', async () => {
    fs.mkdirSync(path.join(trashDir, 'files'), { recursive: true });
    fs.writeFileSync(path.join(trashDir, 'files', 'orphan'), 'leftover');
    const file = path.join(home, 'orphan');
    fs.writeFileSync(file, 'mine');
    const { trashedTo } = await trash().moveToTrash(file);
    expect(path.basename(trashedTo)).toBe('orphan.2');
    expect(fs.readFileSync(path.join(trashDir, 'files', 'orphan'), 'utf8')).toBe('leftover');
    expect(fs.existsSync(path.join(trashDir, 'info', 'orphan.trashinfo'))).toBe(false);
  });

  it('refuses what is already in the trash, and what does not exist', async () => {
    const file = path.join(home, 'x');
    fs.writeFileSync(file, 'x');
    const { trashedTo } = await trash().moveToTrash(file);
    expect((await failureOf(trash().moveToTrash(trashedTo))).message).toContain('already in it');
    expect((await failureOf(trash().moveToTrash(path.join(home, 'missing')))).code).toBe('NOT_FOUND');
  });

  it('refuses a home trash whose files/ or info/ is a link (it could send the file into a private folder)', async () => {
    const privateFolder = path.join(root, 'private');
    fs.mkdirSync(privateFolder);
    for (const redirected of ['files', 'info']) {
      fs.rmSync(trashDir, { recursive: true, force: true });
      fs.mkdirSync(trashDir, { recursive: true });
      fs.mkdirSync(path.join(trashDir, redirected === 'files' ? 'info' : 'files'));
      fs.symlinkSync(privateFolder, path.join(trashDir, redirected));
      const file = path.join(home, 'authorized_keys');
      fs.writeFileSync(file, 'a key');
      const failure = await failureOf(trash().moveToTrash(file));
      expect(failure.code).toBe('PERMISSION_DENIED');
      expect(failure.message).toContain('symbolic link');
      expect(fs.readdirSync(privateFolder)).toEqual([]);
      expect(fs.readFileSync(file, 'utf8')).toBe('a key');
    }
  });

  it('refuses a home trash that others may write to', async () => {
    fs.mkdirSync(path.join(trashDir, 'files'), { recursive: true });
    fs.mkdirSync(path.join(trashDir, 'info'));
    fs.chmodSync(path.join(trashDir, 'files'), 0o777);
    const file = path.join(home, 'note.txt');
    fs.writeFileSync(file, 'kept');
    const failure = await failureOf(trash().moveToTrash(file));
    expect(failure.message).toContain('others may write to');
    expect(fs.existsSync(file)).toBe(true);
  });

  it('follows XDG_DATA_HOME only when it is absolute', () => {
    expect(homeTrashDirectory({ XDG_DATA_HOME: '/data' }, '/home/me')).toBe('/data/Trash');
    expect(homeTrashDirectory({ XDG_DATA_HOME: 'relative' }, '/home/me')).toBe('/home/me/.local/share/Trash');
    expect(homeTrashDirectory({}, '/home/me')).toBe('/home/me/.local/share/Trash');
  });

  it('formats .trashinfo fields as the specification says', () => {
    const date = new Date(2024, 0, 5, 7, 8, 9);
    expect(localTimestamp(date)).toBe('2024-01-05T07:08:09');
    expect(trashInfo('/home/me/a b/中.txt', date)).toBe(
      '[Trash Info]\nPath=/home/me/a%20b/%E4%B8%AD.txt\nDeletionDate=2024-01-05T07:08:09\n',
    );
    expect(trashInfo('relative/x', date)).toContain('Path=relative/x\n');
    expect(numberedName('report.pdf', 2)).toBe('report.2.pdf');
    expect(numberedName('.bashrc', 3)).toBe('.bashrc.3');
    expect(numberedName('Makefile', 2)).toBe('Makefile.2');
  });

  describe('a file on another file system', () => {
    // /dev/shm is a tmpfs on Linux: another file system than the temporary folder's.
    const other = '/dev/shm';
    const separate =
      fs.existsSync(other) && fs.statSync(other).dev !== fs.statSync(os.tmpdir()).dev && isWritable(other);
    const uid = process.getuid?.() ?? 0;
    let scratch: string;
    let createdTopTrash = false;

    beforeEach(() => {
      if (!separate) return;
      createdTopTrash = !fs.existsSync(path.join(other, `.Trash-${uid}`));
      scratch = fs.mkdtempSync(path.join(other, 'nextai-trash-'));
    });
    afterEach(() => {
      if (!separate) return;
      fs.rmSync(scratch, { recursive: true, force: true });
      if (createdTopTrash) fs.rmSync(path.join(other, `.Trash-${uid}`), { recursive: true, force: true });
    });

    it.skipIf(!separate)('goes to $topdir/.Trash-$uid with a path relative to $topdir, and restores', async () => {
      const file = path.join(scratch, 'on tmpfs.txt');
      fs.writeFileSync(file, 'elsewhere');
      const { trashedTo } = await trash().moveToTrash(file);
      expect(path.dirname(path.dirname(trashedTo))).toBe(path.join(other, `.Trash-${uid}`));
      const info = fs.readFileSync(
        path.join(other, `.Trash-${uid}`, 'info', `${path.basename(trashedTo)}.trashinfo`),
        'utf8',
      );
      expect(info).toContain(`Path=${path.basename(scratch)}/on%20tmpfs.txt\n`);
      expect(fs.statSync(path.join(other, `.Trash-${uid}`)).mode & 0o777).toBe(0o700);
      // Nothing was copied into the home trash.
      expect(fs.existsSync(path.join(trashDir, 'files', 'on tmpfs.txt'))).toBe(false);
      expect(restore(trashedTo)).toBe(file);
      expect(fs.readFileSync(file, 'utf8')).toBe('elsewhere');
    });

    it.skipIf(!separate)(
      "does not use that disk's trash when its files/ is a link, and copies without following links",
      async ({ skip }) => {
        // Only where this test made the disk's trash: a real one of the person's is left alone.
        if (!createdTopTrash) skip();
        const topTrash = path.join(other, `.Trash-${uid}`);
        const privateFolder = path.join(root, 'private');
        fs.mkdirSync(privateFolder);
        fs.mkdirSync(path.join(topTrash, 'info'), { recursive: true, mode: 0o700 });
        fs.symlinkSync(privateFolder, path.join(topTrash, 'files'));
        // A folder holding a link to a secret: the link is kept as a link, the secret is not copied.
        const secret = path.join(root, 'secret.txt');
        fs.writeFileSync(secret, 'secret');
        const folder = path.join(scratch, 'project');
        fs.mkdirSync(path.join(folder, 'sub'), { recursive: true });
        fs.writeFileSync(path.join(folder, 'sub', 'a.txt'), 'a');
        fs.symlinkSync(secret, path.join(folder, 'link'));
        const { trashedTo } = await trash().moveToTrash(folder);
        expect(fs.readdirSync(privateFolder)).toEqual([]);
        expect(trashedTo).toBe(path.join(trashDir, 'files', 'project'));
        expect(fs.readFileSync(path.join(trashedTo, 'sub', 'a.txt'), 'utf8')).toBe('a');
        expect(fs.lstatSync(path.join(trashedTo, 'link')).isSymbolicLink()).toBe(true);
        expect(fs.readlinkSync(path.join(trashedTo, 'link'))).toBe(secret);
        expect(fs.existsSync(folder)).toBe(false);
        expect(fs.readFileSync(secret, 'utf8')).toBe('secret');
      },
    );

    it.skipIf(!separate)(
      'finds the top of the disk from the open folder, not by a name a link was put in place of',
      async ({ skip }) => {
        if (!createdTopTrash) skip();
        // Another disk's folder (here the temporary folder's) that a link will point into.
        const victim = path.join(root, 'victim');
        fs.mkdirSync(path.join(victim, 'b', 'c'), { recursive: true });
        fs.mkdirSync(path.join(scratch, 'a', 'b', 'c'), { recursive: true });
        const file = path.join(scratch, 'a', 'b', 'c', 'payload.sh');
        fs.writeFileSync(file, 'attacker bytes', { mode: 0o755 });
        // delete_file holds the folder it judged open; then a folder on the way is swapped for a link.
        const fd = fs.openSync(path.dirname(file), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        try {
          fs.renameSync(path.join(scratch, 'a'), path.join(scratch, 'a.real'));
          fs.symlinkSync(victim, path.join(scratch, 'a'));
          const { trashedTo } = await trash().moveToTrash(file, { via: `/proc/self/fd/${fd}/payload.sh` });
          expect(trashedTo).toBe(path.join(other, `.Trash-${uid}`, 'files', 'payload.sh'));
          expect(fs.readdirSync(path.join(victim, 'b', 'c'))).toEqual([]);
          expect(fs.readFileSync(trashedTo, 'utf8')).toBe('attacker bytes');
        } finally {
          fs.closeSync(fd);
        }
      },
    );

    it.skipIf(!separate)('falls back to a copy in the home trash when that disk has no usable trash', async () => {
      // Another user's id: the .Trash-$uid folder we can create there is not theirs, so it must not be used.
      const stranger = uid + 54321;
      const strangerTrash = path.join(other, `.Trash-${stranger}`);
      const existed = fs.existsSync(strangerTrash);
      try {
        const file = path.join(scratch, 'copied.txt');
        fs.writeFileSync(file, 'copied across');
        const { trashedTo } = await createLinuxTrash({ XDG_DATA_HOME: dataHome }, home, { uid: stranger }).moveToTrash(
          file,
        );
        expect(trashedTo).toBe(path.join(trashDir, 'files', 'copied.txt'));
        expect(fs.existsSync(file)).toBe(false);
        expect(fs.readFileSync(trashedTo, 'utf8')).toBe('copied across');
        const info = fs.readFileSync(path.join(trashDir, 'info', 'copied.txt.trashinfo'), 'utf8');
        expect(info).toContain(`Path=${file}\n`);
      } finally {
        if (!existed) fs.rmSync(strangerTrash, { recursive: true, force: true });
      }
    });
  });
});

function isWritable(folder: string): boolean {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
