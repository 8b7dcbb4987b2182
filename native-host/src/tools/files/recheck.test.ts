import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { callTool, failureOf } from '../test-support.js';
import { writeFileAtomic } from './atomic-write.js';
import { createFileHandlers } from './index.js';
import { locate } from './locate.js';
import { pinning } from './pinned.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

/**
 * A folder swapped while a person decides: the policy checks a file call's real path when it
 * decides, but the call may wait minutes for a person. Meanwhile a process the agent started (a
 * background job in the sandbox may change ~/Projects) moves ~/Projects/site away and puts a
 * symlink to NextAI's data directory in its place. What runs after the approval must act on the
 * folder that was judged, or on nothing — never on NextAI's own files.
 *
 * Each test: the same file guard the policy uses allows the path (the decision), then the tree
 * is changed, then the tool runs.
 */
let fixture: FileFixture;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];
let site: string;
const viaProcHere = pinning.viaProc;
const SECRET = '{"model":{"api_key":"sk-secret-key"}}\n';

beforeEach(() => {
  fixture = fileFixture({ guarded: true, security: { allowed_directories: ['~/Projects'] } });
  handlers = createFileHandlers(fixture.services).handlers;
  site = path.dirname(fixture.put('Projects/site/config.json', '{"site":true}\n'));
  fixture.put('Projects/site/notes.txt', 'a note\n');
  fs.writeFileSync(path.join(fixture.dataDir, 'config.json'), SECRET, { mode: 0o600 });
  fs.writeFileSync(path.join(fixture.dataDir, 'notes.txt'), 'data dir note\n');
});
afterEach(() => {
  pinning.viaProc = viaProcHere;
  fixture.cleanup();
});

/** The policy's decision: the same guard, on the path as it is now. */
function decided(input: string, access: 'read' | 'write', followFinal = true): string {
  const verdict = fixture.services.fileGuard.check(input, access, { followFinal });
  expect(verdict.allowed, verdict.reason?.en).toBe(true);
  return verdict.real;
}

/** What the attacker does while the approval card is shown: the folder goes, a link takes its name. */
function swapSiteForLinkToDataDir(): void {
  fs.renameSync(site, `${site}.moved`);
  fs.symlinkSync(fixture.dataDir, site);
}

const dataDirEntries = () => fs.readdirSync(fixture.dataDir).sort();

function expectChanged(error: AppError): void {
  expect(error.code).toBe('POLICY_BLOCKED');
  expect(error.message).toContain('The path changed since it was approved');
}

describe('a folder on the way replaced by a link to NextAI’s data directory after the decision', () => {
  it('file_write refuses, and config.json in the data directory is untouched', async () => {
    expect(decided('~/Projects/site/config.json', 'write')).toBe(path.join(site, 'config.json'));
    swapSiteForLinkToDataDir();
    const before = dataDirEntries();
    const error = await failureOf(
      callTool('file_write', handlers.file_write, { path: '~/Projects/site/config.json', content: '{"owned":1}' }),
    );
    expectChanged(error);
    expect(error.message).toContain(path.join(fixture.dataDir, 'config.json'));
    expect(fs.readFileSync(path.join(fixture.dataDir, 'config.json'), 'utf8')).toBe(SECRET);
    expect(dataDirEntries()).toEqual(before);
  });

  it('file_edit refuses, and changes nothing there', async () => {
    decided('~/Projects/site/config.json', 'write');
    swapSiteForLinkToDataDir();
    const error = await failureOf(
      callTool('file_edit', handlers.file_edit, {
        path: '~/Projects/site/config.json',
        old_string: 'sk-secret-key',
        new_string: 'sk-attacker',
      }),
    );
    expectChanged(error);
    expect(fs.readFileSync(path.join(fixture.dataDir, 'config.json'), 'utf8')).toBe(SECRET);
  });

  it('create_directory refuses, and creates nothing in the data directory', async () => {
    decided('~/Projects/site/plugins', 'write');
    swapSiteForLinkToDataDir();
    const before = dataDirEntries();
    expectChanged(
      await failureOf(callTool('create_directory', handlers.create_directory, { path: '~/Projects/site/plugins' })),
    );
    expect(dataDirEntries()).toEqual(before);
  });

  it('delete_file refuses, and the data directory keeps its config.json', async () => {
    decided('~/Projects/site/config.json', 'write', false);
    swapSiteForLinkToDataDir();
    expectChanged(
      await failureOf(
        callTool('delete_file', handlers.delete_file, { path: '~/Projects/site/config.json', permanent: true }),
      ),
    );
    expect(fs.readFileSync(path.join(fixture.dataDir, 'config.json'), 'utf8')).toBe(SECRET);
    expectChanged(
      await failureOf(callTool('delete_file', handlers.delete_file, { path: '~/Projects/site/notes.txt' })),
    );
    expect(fs.existsSync(path.join(fixture.dataDir, 'notes.txt'))).toBe(true);
  });

  it('file_read and file_search refuse: the API key in config.json is not read', async () => {
    decided('~/Projects/site/config.json', 'read');
    swapSiteForLinkToDataDir();
    const read = await failureOf(callTool('file_read', handlers.file_read, { path: '~/Projects/site/config.json' }));
    expectChanged(read);
    expect(read.message).not.toContain('sk-secret-key');
    const search = await failureOf(
      callTool('file_search', handlers.file_search, {
        directory: '~/Projects/site',
        pattern: 'sk-',
        type: 'content',
      }),
    );
    expectChanged(search);
  });

  it('a link put where the file itself was is refused, not followed', async () => {
    decided('~/Projects/site/config.json', 'write');
    fs.rmSync(path.join(site, 'config.json'));
    fs.symlinkSync(path.join(fixture.dataDir, 'config.json'), path.join(site, 'config.json'));
    // Written: the link is judged again and leads into the data directory.
    expectChanged(
      await failureOf(
        callTool('file_write', handlers.file_write, { path: '~/Projects/site/config.json', content: 'x' }),
      ),
    );
    expect(fs.readFileSync(path.join(fixture.dataDir, 'config.json'), 'utf8')).toBe(SECRET);
  });
});

describe('the folder replaced while the write is under way (after the check, before the rename)', () => {
  for (const viaProc of [true, false]) {
    it(`the new content never lands in the data directory (${viaProc ? 'through the open folder' : 'by name, confirmed before the rename'})`, async () => {
      if (viaProc && !pinning.viaProc) return; // no /proc here: the by-name run covers it
      pinning.viaProc = viaProc;
      const { real } = locate(fixture.services, '~/Projects/site/config.json', 'write', 'written');
      const error = await writeFileAtomic(real, Buffer.from('{"owned":1}'), {
        createParents: true,
        beforeRename: () => swapSiteForLinkToDataDir(),
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AppError);
      expectChanged(error as AppError);
      expect(fs.readFileSync(path.join(fixture.dataDir, 'config.json'), 'utf8')).toBe(SECRET);
      expect(dataDirEntries()).toEqual(['config.json', 'notes.txt']);
      // The folder that was judged keeps its old file (by name, the temporary file is left there:
      // the name of the folder no longer leads to it, so nothing is removed through it).
      const kept = fs.readdirSync(`${site}.moved`).filter((name) => !(viaProc === false && name.endsWith('.tmp')));
      expect(kept.sort()).toEqual(['config.json', 'notes.txt']);
      expect(fs.readFileSync(path.join(`${site}.moved`, 'config.json'), 'utf8')).toBe('{"site":true}\n');
    });
  }
});

describe('what still works', () => {
  it('a folder replaced by a link to another allowed folder is judged there, and written there', async () => {
    const other = path.dirname(fixture.put('Projects/other/keep.txt', 'k'));
    fs.renameSync(site, `${site}.moved`);
    fs.symlinkSync(other, site);
    const result = (await callTool('file_write', handlers.file_write, {
      path: '~/Projects/site/new.txt',
      content: 'fine',
    })) as { path: string };
    expect(result.path).toBe(path.join(other, 'new.txt'));
    expect(fs.readFileSync(path.join(other, 'new.txt'), 'utf8')).toBe('fine');
  });

  it('an allowed path is read, written, created and deleted as before', async () => {
    await callTool('file_write', handlers.file_write, { path: '~/Projects/site/a/b/c.txt', content: 'hello\n' });
    expect(await callTool('file_read', handlers.file_read, { path: '~/Projects/site/a/b/c.txt' })).toMatchObject({
      content: 'hello\n',
    });
    await callTool('create_directory', handlers.create_directory, { path: '~/Projects/site/x/y', parents: true });
    expect(fs.statSync(path.join(site, 'x/y')).isDirectory()).toBe(true);
    await callTool('delete_file', handlers.delete_file, { path: '~/Projects/site/a', permanent: true });
    expect(fs.existsSync(path.join(site, 'a'))).toBe(false);
  });
});
