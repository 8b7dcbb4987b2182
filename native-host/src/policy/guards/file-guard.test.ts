import fs from 'node:fs';
import path from 'node:path';

import { AppError, type SecurityConfig } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { FileGuard, type FileVerdict } from './file-guard.js';
import { joinedPath } from './paths.js';
import { buildTestTree, independentReal, independentRoots, insideAny, type TestTree } from './test-tree.js';

/**
 * The path table: every way of spelling a path that should or should not reach a file (at least
 * 200 cases, a test makes sure). `@T` is the temporary root, `@H` the fake home; the working
 * directory is `@H/Projects` unless a case says otherwise. Config `narrow` allows ~/Projects,
 * ~/Documents/NextAI and ~/Desktop (a symlink); `wide` allows the whole home folder.
 *
 * Whatever a case expects, every allowed verdict is also checked against an independent
 * resolution (the C library's realpath): nothing allowed may lie outside the allowed folders.
 */
type Outcome = 'allow' | 'outside' | 'granted-out' | 'denied' | 'protected' | 'unresolvable' | 'invalid';

interface PathCase {
  name: string;
  path: string;
  expect: Outcome;
  access?: 'read' | 'write';
  cwd?: string;
  config?: 'narrow' | 'wide';
  /** The expected real path (with @T/@H). */
  real?: string;
  sensitive?: boolean;
  restrict?: string[];
  /** Only when the tree could make a hard link. */
  needsHardLink?: boolean;
}

const c = (
  name: string,
  pathText: string,
  expected: Outcome,
  extra: Omit<PathCase, 'name' | 'path' | 'expect'> = {},
): PathCase => ({ name, path: pathText, expect: expected, ...extra });

const P = '@H/Projects';
const long = (unit: string, times: number) => unit.repeat(times);

const BASE_CASES: PathCase[] = [
  // Plain paths inside and outside.
  c('relative file', 'app/src/index.ts', 'allow', { real: `${P}/app/src/index.ts` }),
  c('dot-relative file', './app/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('absolute file', `${P}/app/README.md`, 'allow'),
  c('tilde file', '~/Projects/app/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('the allowed folder itself', '~/Projects', 'allow', { real: P }),
  c('the allowed folder, trailing slash', '~/Projects/', 'allow', { real: P }),
  c('cwd itself', '.', 'allow', { real: P }),
  c('new file', 'app/new-file.txt', 'allow', { access: 'write', real: `${P}/app/new-file.txt` }),
  c('new file in new folders', 'app/new-dir/deeper/file.txt', 'allow', { access: 'write' }),
  c('second allowed folder', '~/Documents/NextAI/doc.md', 'allow'),
  c('new file in second allowed folder', '~/Documents/NextAI/new.md', 'allow', { access: 'write' }),
  c('parent of an allowed folder', '~/Documents', 'outside'),
  c('prefix sibling of an allowed folder', '~/Documents/NextAIx/a', 'outside'),
  c('prefix sibling file', '~/ProjectsX/secret.txt', 'outside'),
  c('prefix sibling folder', '~/ProjectsX', 'outside'),
  c('home', '~', 'outside', { real: '@H' }),
  c('home with slash', '~/', 'outside', { real: '@H' }),
  c('root', '/', 'outside', { real: '/' }),
  c('outside file', '@T/outside/secret.txt', 'outside'),
  c('new file outside', '@T/outside/new.txt', 'outside', { access: 'write' }),
  c('/etc/passwd is denied before it is outside', '/etc/passwd', 'denied', { sensitive: true }),
  c('/etc itself', '/etc', 'denied'),
  c('/tmp', '/tmp', 'outside'),

  // Traversal.
  c('..', '..', 'outside', { real: '@H' }),
  c('../..', '../..', 'outside', { real: '@T' }),
  c('out and back in', '../Projects/app/README.md', 'allow'),
  c('in, out, sideways', 'app/../../ProjectsX/secret.txt', 'outside'),
  c('in, out, back in', 'app/../../Projects/app', 'allow'),
  c('many .. to /etc', `${long('../', 30)}etc/passwd`, 'denied'),
  c('many .. to /tmp', `${long('../', 30)}tmp/x`, 'outside', { access: 'write', real: '/tmp/x' }),
  c('~/..', '~/..', 'outside', { real: '@T' }),
  c('~/../..', '~/../..', 'outside'),
  c('~/Projects/../.ssh', '~/Projects/../.ssh/id_rsa', 'denied', { sensitive: true }),
  c('~/Projects/app/../../.bashrc', '~/Projects/app/../../.bashrc', 'outside', { sensitive: true }),
  c('climb between allowed folders', 'app/src/../../../Documents/NextAI/doc.md', 'allow'),
  c('dots', './././app', 'allow', { real: `${P}/app` }),
  c('dots inside', 'app/./src/./index.ts', 'allow', { real: `${P}/app/src/index.ts` }),
  c('a folder named ...', '.../x', 'allow', { real: `${P}/.../x` }),
  c('a folder named ..foo', '..foo/x', 'allow', { real: `${P}/..foo/x` }),
  c('%2e%2e stays literal', '%2e%2e/file.txt', 'allow', { real: `${P}/%2e%2e/file.txt` }),
  c('%2e%2e twice stays literal', '%2e%2e/%2e%2e/secret', 'allow', {
    access: 'write',
    real: `${P}/%2e%2e/%2e%2e/secret`,
  }),
  c('encoded slashes stay literal', '..%2f..%2fetc%2fpasswd', 'allow', { real: `${P}/..%2f..%2fetc%2fpasswd` }),
  c('backslashes are names on Linux', '..\\..\\etc\\passwd', 'allow', { real: `${P}/..\\..\\etc\\passwd` }),
  c('.... is a name', '....//....//etc', 'allow', { access: 'write', real: `${P}/..../..../etc` }),
  c('dot-dot-slash inside a name', 'a..b/../../x', 'outside', { access: 'write', real: '@H/x' }),
  c('trailing ..', 'app/src/..', 'allow', { real: `${P}/app` }),
  c('trailing .. leaves', 'app/..', 'allow', { real: P }),
  c('trailing .. leaves the folder', 'app/src/../../..', 'outside', { real: '@H' }),
  c('.. to the ssh key', '../.ssh/id_rsa', 'denied', { sensitive: true }),
  c('.. to the database', '../.nextai-agent/data.db', 'protected'),

  // Duplicate and trailing slashes.
  c('double slashes', 'app//src///index.ts', 'allow', { real: `${P}/app/src/index.ts` }),
  c('leading double slash', '//etc/passwd', 'denied'),
  c('double slash in absolute', `${P}//app/`, 'allow', { real: `${P}/app` }),
  c('tilde double slash', '~//Projects/app', 'allow', { real: `${P}/app` }),
  c('trailing slash on folder', '~/Projects/app/src/', 'allow'),
  c('only slashes', '///', 'outside', { real: '/' }),
  c('trailing slash on a file', 'app/README.md/', 'allow'),
  c('trailing slash dot', 'app/.', 'allow', { real: `${P}/app` }),

  // Symlinks leading out.
  c('symlinked folder out', 'link-out', 'outside', { real: '@T/outside' }),
  c('file in symlinked folder out', 'link-out/secret.txt', 'outside', { real: '@T/outside/secret.txt' }),
  c('new file in symlinked folder out', 'link-out/new.txt', 'outside', { access: 'write', real: '@T/outside/new.txt' }),
  c('new folders under symlinked folder out', 'link-out/newdir/new.txt', 'outside', { access: 'write' }),
  c('symlinked file out', 'link-file-out', 'outside', { real: '@T/outside/secret.txt' }),
  c('write through symlinked file out', 'link-file-out', 'outside', { access: 'write' }),
  c('relative symlink out', 'rel-up', 'outside', { real: '@T/outside' }),
  c('file through relative symlink out', 'rel-up/secret.txt', 'outside'),
  c('new file through relative symlink out', 'rel-up/new.txt', 'outside', { access: 'write' }),
  c('symlink to ..', 'link-home', 'outside', { real: '@H' }),
  c('ssh key through symlink to ..', 'link-home/.ssh/id_rsa', 'denied', { sensitive: true }),
  c('out and back in through a symlink', 'link-home/Projects/app/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('sibling through symlink to ..', 'link-home/ProjectsX/secret.txt', 'outside'),
  c('symlink to / then /etc', 'link-root/etc/passwd', 'denied'),
  c('symlink to /', 'link-root', 'outside', { real: '/' }),
  c('symlink to / then /tmp', 'link-root/tmp/x', 'outside', { access: 'write', real: '/tmp/x' }),
  c('symlink to /etc', 'link-etc/hosts', 'denied', { real: '/etc/hosts' }),
  c('symlink to the temp root', 'link-tmp/outside/secret.txt', 'outside'),
  c('symlink to the temp root and back in', 'link-tmp/home/Projects/app/README.md', 'allow'),
  c('chain of two links out', 'link-chain-out', 'outside', { real: '@T/outside' }),
  c('new file behind a chain out', 'link-chain-out/new', 'outside', { access: 'write' }),
  c('relative symlink deep inside out', 'app/sub/link-up', 'outside', { real: '@T/outside' }),
  c('file behind relative symlink deep inside', 'app/sub/link-up/secret.txt', 'outside'),

  // `..` after a symlink goes to the target's parent, not the link's.
  c('link/.. is the target parent', 'link-in/../README.md', 'allow', { real: `${P}/README.md` }),
  c('link-out/.. leaves (lexically inside)', 'link-out/..', 'outside', { real: '@T' }),
  c('link-out/../outside (lexically inside)', 'link-out/../outside/secret.txt', 'outside', {
    real: '@T/outside/secret.txt',
  }),
  c('link-out/../home back in', 'link-out/../home/Projects/app', 'allow', { real: `${P}/app` }),
  c('link-src/../../.. leaves', 'link-src/../../..', 'outside', { real: '@H' }),
  c('link-src/../../ProjectsX (lexically outside, really inside)', 'link-src/../../ProjectsX', 'allow', {
    access: 'write',
    real: `${P}/ProjectsX`,
  }),
  c('write through link/.. out', 'link-out/../new.txt', 'outside', { access: 'write', real: '@T/new.txt' }),

  // Symlinks staying inside.
  c('absolute symlink inside', 'link-in/src/index.ts', 'allow', { real: `${P}/app/src/index.ts` }),
  c('relative symlink inside', 'link-in-rel/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('new file behind symlink inside', 'link-in/new.txt', 'allow', { access: 'write', real: `${P}/app/new.txt` }),
  c('symlink to the Desktop symlink', 'link-desktop/note.txt', 'allow', { real: '@T/desktop-real/note.txt' }),

  // Dangling symlinks: a write creates the target.
  c('dangling symlink out, write', 'dangling-out', 'outside', { access: 'write', real: '@T/outside/nope/new.txt' }),
  c('dangling symlink out, read', 'dangling-out', 'outside'),
  c('dangling symlink inside', 'dangling-in', 'allow', { access: 'write', real: `${P}/app/new.txt` }),
  c('dangling relative symlink out', 'dangling-rel-out', 'outside', { access: 'write', real: '@T/outside/made-later' }),
  c('below a dangling symlink', 'dangling-out/child', 'outside', { access: 'write' }),
  c('up out of a dangling symlink inside', 'dangling-in/../..', 'allow', { real: P }),
  c('up out of a dangling symlink out', 'dangling-out/../..', 'outside', { real: '@T/outside' }),

  // Loops and long chains.
  c('symlink loop', 'loop-a', 'unresolvable'),
  c('new file in a loop', 'loop-a/x', 'unresolvable', { access: 'write' }),
  c('self loop', 'self', 'unresolvable'),
  c('self loop then ..', 'self/../app', 'unresolvable'),
  c('chain of 15', 'chain-31/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('chain of exactly 40', 'chain-6/README.md', 'allow', { real: `${P}/app/README.md` }),
  c('chain of 41', 'chain-5/README.md', 'unresolvable'),
  c('chain of 45', 'chain-1', 'unresolvable', { access: 'write' }),

  // Tilde.
  c('~user', '~root/.ssh/id_rsa', 'invalid'),
  c('~user alone', '~nobody', 'invalid'),
  c('~~', '~~', 'invalid'),
  c('~ not at the start is a name', 'app/~/x', 'allow', { access: 'write', real: `${P}/app/~/x` }),
  c('./~ is a name', './~', 'allow', { access: 'write', real: `${P}/~` }),
  c('allowed folder that is a symlink', '~/Desktop/note.txt', 'allow', { real: '@T/desktop-real/note.txt' }),
  c('new file in the symlinked allowed folder', '~/Desktop/new.txt', 'allow', { access: 'write' }),
  c('real path of the symlinked allowed folder', '@T/desktop-real/note.txt', 'allow'),
  c('.. from the symlinked allowed folder', '~/Desktop/../Projects/app', 'outside', { real: '@T/Projects/app' }),
  c('the symlinked allowed folder itself', '~/Desktop', 'allow', { real: '@T/desktop-real' }),
  c('the symlinked allowed folder, trailing slash', '~/Desktop/', 'allow'),

  // Denied patterns inside allowed folders.
  c('node_modules file', 'app/node_modules/pkg/index.js', 'denied'),
  c('node_modules folder', 'app/node_modules', 'denied'),
  c('new node_modules file', 'app/node_modules/new.js', 'denied', { access: 'write' }),
  c('*.pem', 'app/certs/server.pem', 'denied'),
  c('new *.pem', 'app/new.pem', 'denied', { access: 'write' }),
  c('.env', 'app/.env', 'denied'),
  c('case differs: not node_modules on Linux', 'app/NODE_MODULES/x', 'allow', { access: 'write' }),
  c('ssh key through a symlink in an allowed folder', 'link-ssh/id_rsa', 'denied', { sensitive: true }),
  c('ssh folder through a symlink', 'link-ssh', 'denied', { sensitive: true }),
  c('new ssh key through a symlink', 'link-ssh/new_key', 'denied', { access: 'write', sensitive: true }),
  c('bashrc through a symlink', 'link-bashrc', 'outside', { access: 'write', sensitive: true }),

  // NextAI's own files.
  c('config through a symlinked folder', 'link-protected/config.json', 'protected'),
  c('symlink to the data folder', 'link-protected', 'protected'),
  c('symlink to config.json', 'link-config', 'protected'),
  c('write through symlink to config.json', 'link-config', 'protected', { access: 'write' }),
  c('new file in the data folder via symlink', 'link-protected/new.txt', 'protected', { access: 'write' }),
  c('config.json', '~/.nextai-agent/config.json', 'protected'),
  c('data folder', '~/.nextai-agent', 'protected'),
  c('database via ..', '~/.nextai-agent/../.nextai-agent/data.db', 'protected'),
  c('audit anchor', '~/.nextai-agent/audit-anchor.json', 'protected', { access: 'write' }),
  c('service unit', '~/.config/systemd/user/nextai-agent.service', 'protected', { access: 'write' }),
  c('manifest', '~/.config/google-chrome/NativeMessagingHosts/com.nextai.agent.json', 'protected', { access: 'write' }),
  c('launch agent not there yet', '~/Library/LaunchAgents/com.nextai-agent.plist', 'protected', { access: 'write' }),
  c('hard link to config.json', 'hardlink-config', 'protected', { needsHardLink: true }),
  c('write to a hard link to config.json', 'hardlink-config', 'protected', { access: 'write', needsHardLink: true }),

  // Case (Linux is case-sensitive; macOS and Windows are covered in paths.test.ts).
  c('lower-case sibling folder', '~/projects/x.txt', 'outside'),
  c('upper-case allowed folder', '~/PROJECTS/app', 'outside'),
  c('mixed case file', 'upper/File.TXT', 'allow'),
  c('other case of a file', 'upper/file.txt', 'allow', { access: 'write' }),

  // Not paths.
  c('empty', '', 'invalid'),
  c('NUL inside', 'app\0/x', 'invalid'),
  c('only NUL', '\0', 'invalid'),
  c('NUL before an extension', '~/Projects/app/README.md\0.txt', 'invalid'),
  c('NUL after ..', '../\0', 'invalid'),

  // Working directories.
  c('deep cwd', 'index.ts', 'allow', { cwd: `${P}/app/src`, real: `${P}/app/src/index.ts` }),
  c('deep cwd climbing out', '../../../ProjectsX/secret.txt', 'outside', { cwd: `${P}/app/src` }),
  c('home cwd', 'Projects/app', 'allow', { cwd: '@H' }),
  c('home cwd, ssh', '.ssh/id_rsa', 'denied', { cwd: '@H' }),
  c('outside cwd', 'secret.txt', 'outside', { cwd: '@T/outside' }),
  c('outside cwd climbing in', '../home/Projects/app', 'allow', { cwd: '@T/outside' }),
  c('cwd through a symlink out', '.', 'outside', { cwd: `${P}/link-out`, real: '@T/outside' }),
  c('.. from a cwd through a symlink out', '..', 'outside', { cwd: `${P}/link-out`, real: '@T' }),
  c('.. from a cwd through a symlink in', '../app/README.md', 'allow', { cwd: `${P}/link-in` }),
  c('tilde cwd', 'app', 'allow', { cwd: '~/Projects' }),
  c('relative cwd', 'app', 'invalid', { cwd: 'relative/cwd' }),
  c('cwd that does not exist', 'x', 'allow', { access: 'write', cwd: `${P}/not-yet` }),

  // Very long paths.
  c('300 new folders', `${long('a/', 300)}x`, 'allow', { access: 'write' }),
  c('a 300-character name', `app/${long('x', 300)}`, 'allow', { access: 'write' }),
  c('200 .. to /etc', `${long('../', 200)}etc/passwd`, 'denied'),
  c('1000 down, 1001 up', `${long('a/', 1000)}${long('../', 1001)}ProjectsX/secret.txt`, 'outside'),
  c('1000 down, 1000 up', `${long('a/', 1000)}${long('../', 1000)}app/README.md`, 'allow', {
    real: `${P}/app/README.md`,
  }),
  c('20 hops through a symlink to ..', `${long('link-home/Projects/', 20)}app/README.md`, 'allow', {
    real: `${P}/app/README.md`,
  }),
  c('41 hops through a symlink to ..', `${long('link-home/Projects/', 41)}app`, 'unresolvable'),
  c('a long name under a symlink out', `link-out/${long('y', 200)}`, 'outside', { access: 'write' }),

  // The whole home allowed: denied patterns and NextAI's files still hold.
  c('wide: ssh key', '~/.ssh/id_rsa', 'denied', { config: 'wide', sensitive: true }),
  c('wide: ssh config write', '~/.ssh/config', 'denied', { config: 'wide', access: 'write', sensitive: true }),
  c('wide: ssh folder', '~/.ssh', 'denied', { config: 'wide', sensitive: true }),
  c('wide: aws credentials', '~/.aws/credentials', 'denied', { config: 'wide', sensitive: true }),
  c('wide: aws folder', '~/.aws', 'denied', { config: 'wide', sensitive: true }),
  c('wide: gnupg', '~/.gnupg/pubring.kbx', 'denied', { config: 'wide', sensitive: true }),
  c('wide: bashrc read', '~/.bashrc', 'allow', { config: 'wide', sensitive: true }),
  c('wide: bashrc write', '~/.bashrc', 'allow', { config: 'wide', access: 'write', sensitive: true }),
  c('wide: browser cookies', '~/.config/google-chrome/Default/Cookies', 'allow', { config: 'wide', sensitive: true }),
  c('wide: a systemd unit', '~/.config/systemd/user/other.service', 'allow', {
    config: 'wide',
    access: 'write',
    sensitive: true,
  }),
  c('wide: autostart', '~/.config/autostart/x.desktop', 'allow', { config: 'wide', access: 'write', sensitive: true }),
  c('wide: config.json', '~/.nextai-agent/config.json', 'protected', { config: 'wide' }),
  c('wide: write home (holds the data folder)', '~', 'protected', { config: 'wide', access: 'write' }),
  c('wide: read home', '~', 'allow', { config: 'wide' }),
  c('wide: write ~/.config (holds units)', '~/.config', 'protected', { config: 'wide', access: 'write' }),
  c('wide: write ~/.config/systemd', '~/.config/systemd', 'protected', { config: 'wide', access: 'write' }),
  c('wide: read ~/.config', '~/.config', 'allow', { config: 'wide' }),
  c('wide: database via a symlink', '~/Projects/link-protected/data.db', 'protected', { config: 'wide' }),
  c('wide: symlink out', '~/Projects/link-out/secret.txt', 'outside', { config: 'wide' }),
  c('wide: node_modules', '~/Projects/app/node_modules/pkg/index.js', 'denied', { config: 'wide' }),
  c('wide: .. out of home', '~/Projects/../../outside/secret.txt', 'outside', { config: 'wide' }),
  c('wide: home by absolute path', '@H', 'allow', { config: 'wide' }),
  c('wide: hard link', '~/Projects/hardlink-config', 'protected', { config: 'wide', needsHardLink: true }),

  // A coordinator grant narrows, never widens.
  c('grant: inside', 'app/README.md', 'allow', { restrict: ['~/Projects/app'] }),
  c('grant: sibling', '%2e%2e/file.txt', 'granted-out', { restrict: ['~/Projects/app'] }),
  c('grant: other allowed folder', '~/Documents/NextAI/doc.md', 'granted-out', { restrict: ['~/Projects'] }),
  c('grant: nothing', 'app/README.md', 'granted-out', { restrict: [] }),
  c('grant: via a symlinked folder', 'app/README.md', 'allow', { restrict: ['~/Projects/link-in'] }),
  c('grant cannot widen', '@T/outside/secret.txt', 'outside', { restrict: ['@T/outside'] }),
  c('grant: relative folders are from home', 'app/src/index.ts', 'granted-out', { restrict: ['app'] }),
  c('grant: symlink into the granted folder', 'link-in/src/index.ts', 'allow', { restrict: ['~/Projects/app/src'] }),
  c('grant: .. out of the granted folder', 'app/src/../README.md', 'granted-out', { restrict: ['~/Projects/app/src'] }),
];

/** Spelling variants that must not change the outcome. */
const VARIANT_BASES = [
  'app/src/index.ts',
  'link-in-rel/README.md',
  'link-out/secret.txt',
  'link-file-out',
  'rel-up/secret.txt',
  'link-home/.ssh/id_rsa',
  'link-protected/config.json',
  'link-config',
  'app/node_modules/pkg/index.js',
  'link-in/src/index.ts',
  'dangling-out',
  'loop-a',
  'link-desktop/note.txt',
  'link-out/../outside/secret.txt',
  'link-src/../../..',
  'app/../../ProjectsX/secret.txt',
  '../.ssh/id_rsa',
  '../.nextai-agent/data.db',
  'chain-6/README.md',
  '%2e%2e/file.txt',
  'link-etc/hosts',
  'hardlink-config',
];

function variants(base: PathCase): PathCase[] {
  const spelled = (suffix: string, pathText: string): PathCase => ({
    ...base,
    name: `${base.name} ${suffix}`,
    path: pathText,
    real: undefined,
  });
  return [
    spelled('(./)', `./${base.path}`),
    spelled('(absolute)', `${P}/${base.path}`),
    spelled('(tilde)', `~/Projects/${base.path}`),
    spelled('(doubled slashes)', base.path.replaceAll('/', '//')),
    spelled('(trailing slash)', `${base.path}/`),
    spelled('(via ../Projects)', `../Projects/${base.path}`),
  ];
}

const CASES: PathCase[] = [
  ...BASE_CASES,
  ...VARIANT_BASES.flatMap((text) => {
    const base = BASE_CASES.find((entry) => entry.path === text && !entry.restrict && !entry.cwd && !entry.config);
    if (!base) throw new Error(`no base case for ${text}`);
    return variants(base);
  }),
];

let tree: TestTree;
let guards: Record<'narrow' | 'wide', FileGuard>;

beforeAll(() => {
  tree = buildTestTree();
  const make = (security: SecurityConfig) =>
    new FileGuard({ platform: 'linux', homeDir: tree.home, security, protectedPaths: tree.protectedPaths });
  guards = { narrow: make(tree.narrow), wide: make(tree.wide) };
});

afterAll(() => tree.remove());

const fill = (text: string) => text.replaceAll('@T', tree.root).replaceAll('@H', tree.home);

describe('FileGuard.check: the path table', () => {
  it('has at least 200 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(200);
    expect(new Set(CASES.map((entry) => entry.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    if (entry.needsHardLink && !tree.hardLinkMade) return;
    const configName = entry.config ?? 'narrow';
    const guard = guards[configName];
    const pathText = fill(entry.path);
    const cwd = fill(entry.cwd ?? P);
    const access = entry.access ?? 'read';
    const restrictions = entry.restrict ? { allowed_directories: entry.restrict.map(fill) } : undefined;

    if (entry.expect === 'invalid') {
      expect(() => guard.check(pathText, access, cwd, restrictions)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }) as unknown as AppError,
      );
      return;
    }
    const verdict = guard.check(pathText, access, cwd, restrictions);
    expect(outcomeOf(verdict), verdict.reason?.en).toBe(entry.expect);
    if (entry.real !== undefined) expect(verdict.real).toBe(fill(entry.real));
    if (entry.sensitive !== undefined) expect(Boolean(verdict.sensitive), verdict.sensitive?.en).toBe(entry.sensitive);

    // Independently of the guard's own resolver: what is allowed is inside the allowed folders.
    const independent = independentReal(joinedPath(pathText, cwd, tree.home, 'linux'));
    if (independent.complete && entry.expect !== 'unresolvable') expect(verdict.real).toBe(independent.real);
    if (verdict.allowed) {
      const security = configName === 'narrow' ? tree.narrow : tree.wide;
      expect(insideAny(independent.real, independentRoots(security.allowed_directories, tree.home))).toBe(true);
      expect(insideAny(verdict.real, independentRoots(security.allowed_directories, tree.home))).toBe(true);
      if (restrictions) {
        expect(insideAny(verdict.real, independentRoots(restrictions.allowed_directories, tree.home))).toBe(true);
      }
      expect(verdict.real.startsWith(path.join(tree.home, '.nextai-agent'))).toBe(false);
    }
  });
});

function outcomeOf(verdict: FileVerdict): Outcome {
  if (verdict.allowed) return 'allow';
  if (verdict.layer === 'protected_files') return 'protected';
  const reason = verdict.reason?.en ?? '';
  if (reason.includes('cannot be checked')) return 'unresolvable';
  if (reason.includes('denied pattern')) return 'denied';
  if (reason.includes('this task was granted')) return 'granted-out';
  if (reason.includes('outside the folders NextAI may use')) return 'outside';
  throw new Error(`unexpected verdict ${JSON.stringify(verdict)}`);
}

describe('FileGuard: the rest of its surface', () => {
  it('resolve() reports lexical and real paths and existence', () => {
    const resolved = guards.narrow.resolve('link-out/../new.txt', fill(P));
    expect(resolved).toEqual({
      input: 'link-out/../new.txt',
      absolute: fill(`${P}/new.txt`),
      real: fill('@T/new.txt'),
      exists: false,
    });
    expect(guards.narrow.resolve('app', fill(P)).exists).toBe(true);
    expect(guards.narrow.resolve('dangling-in', fill(P)).exists).toBe(false);
  });

  it('resolve() refuses what is not a path with INVALID_INPUT', () => {
    for (const bad of [undefined, null, 42, {}, '', 'a\0b', '~other/x']) {
      expect(() => guards.narrow.resolve(bad as string, fill(P))).toThrow(AppError);
      try {
        guards.narrow.resolve(bad as string, fill(P));
      } catch (error) {
        expect((error as AppError).code).toBe('INVALID_INPUT');
      }
    }
    expect(() => guards.narrow.resolve('~other/x', fill(P))).toThrow(/another user's home folder/);
  });

  it('reports loops with a clear message', () => {
    const verdict = guards.narrow.check('loop-a', 'read', fill(P));
    expect(verdict.reason?.en).toMatch(/more than 40 symbolic links/);
  });

  it('exposes max_file_size', () => {
    expect(guards.narrow.maxFileSize).toBe(50 * 1024 * 1024);
  });

  it('explains refusals in words, naming the setting to change', () => {
    expect(guards.narrow.check('link-out/secret.txt', 'read', fill(P)).reason?.en).toMatch(
      /really .*outside\/secret\.txt.*outside the folders NextAI may use.*security\.allowed_directories/,
    );
    expect(guards.narrow.check('link-config', 'read', fill(P)).reason?.en).toMatch(/NextAI's own files/);
    expect(guards.narrow.check('app/.env', 'read', fill(P)).reason?.en).toMatch(/denied pattern "\*\*\/\.env"/);
  });

  it('sees an allowed folder created after the guard was built', () => {
    const guard = new FileGuard({
      platform: 'linux',
      homeDir: tree.home,
      security: { ...tree.narrow, allowed_directories: ['~/Later'] },
      protectedPaths: tree.protectedPaths,
    });
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      expect(guard.check('~/Later/x', 'write', fill(P)).allowed).toBe(true);
      fs.symlinkSync(path.join(tree.root, 'work'), path.join(tree.home, 'Later'));
      // Configured folders are re-resolved once they are a second old.
      vi.advanceTimersByTime(1001);
      expect(guard.check('~/Later/w.txt', 'read', fill(P))).toMatchObject({
        allowed: true,
        real: path.join(tree.root, 'work', 'w.txt'),
      });
    } finally {
      vi.useRealTimers();
      fs.unlinkSync(path.join(tree.home, 'Later'));
    }
  });

  it('allows nothing when no folder is allowed', () => {
    const guard = new FileGuard({
      platform: 'linux',
      homeDir: tree.home,
      security: { ...tree.narrow, allowed_directories: [] },
      protectedPaths: [],
    });
    expect(guard.check('app/README.md', 'read', fill(P)).allowed).toBe(false);
  });

  // How long a check takes is measured by `npm run bench -- safety` (a path through a link).
});

describe('FileGuard.checkPath: paths in shell commands', () => {
  const check = (pathText: string, access: 'read' | 'write' = 'read', cwd = P) =>
    guards.narrow.checkPath(fill(pathText), access, fill(cwd));

  it('blocks NextAI’s own files however they are spelled', () => {
    for (const spelled of [
      '~/.nextai-agent/config.json',
      'link-config',
      'link-protected/data.db',
      '~/.nextai-agen?/data.db',
      '~/.next*',
      '~/.nextai-agent/*',
      '~/.config/*/user/nextai-agent.service',
      '~/.nextai-{agent,other}/config.json',
      '~/Projects/{app,../.nextai-agent}/config.json',
      '~/.nextai-agent/[cd]*.json',
      '~/**/config.json',
      // A `*` that matches a symlink into the data folder.
      '~/Projects/*/config.json',
      'link-*/data.db',
      '~/Projects/link-pro[t]ected',
      // The shell's negated set: `[!x]` is any character but x (picomatch alone read `!` as a member).
      '~/.nextai-agen[!x]/config.json',
      '~/.nextai-agen[!x]',
    ]) {
      expect(check(spelled), spelled).toMatchObject({ block: true, risk: 'critical', layer: 'protected_files' });
    }
    if (tree.hardLinkMade) expect(check('hardlink-config')).toMatchObject({ block: true });
  });

  it('raises sensitive places and denied patterns to critical without blocking', () => {
    for (const [spelled, access] of [
      ['~/.ssh/id_rsa', 'read'],
      ['~/.bashrc', 'write'],
      ['link-bashrc', 'write'],
      ['~/.ss?/id_rsa', 'read'],
      ['~/.ss[!x]/id_rsa', 'read'],
      ['~/.config/autostart/evil.desktop', 'write'],
      ['app/node_modules/x', 'write'],
      ['~', 'write'],
      ['~root/.bashrc', 'write'],
      ['loop-a', 'read'],
      ['~/.{bashrc,profile}', 'write'],
      ['*/id_rsa', 'read'],
      ['app/*', 'write'],
      ['~/Projects/*/../.nextai-agent', 'read'],
      [`x{1..${1000}}`, 'write'],
    ] as const) {
      expect(check(spelled, access), spelled).toMatchObject({ block: false, risk: 'critical', layer: 'filesystem' });
    }
  });

  it('keeps reads of denied (but not sensitive) places at high, and writes critical', () => {
    for (const spelled of ['/etc/hosts', 'app/certs/*']) {
      expect(check(spelled, 'read'), spelled).toMatchObject({ block: false, risk: 'high', layer: 'filesystem' });
      expect(check(spelled, 'write'), spelled).toMatchObject({ block: false, risk: 'critical', layer: 'filesystem' });
    }
  });

  it('counts a glob with too many matches as unknown', () => {
    const many = path.join(tree.root, 'many');
    fs.mkdirSync(many);
    for (let index = 0; index <= 1000; index += 1) fs.writeFileSync(path.join(many, `f${index}`), '');
    try {
      expect(check('@T/many/f*')).toMatchObject({
        risk: 'critical',
        reason: expect.objectContaining({ en: expect.stringMatching(/more than 1000/) }),
      });
      expect(check('@T/many/f1*')).toBeUndefined();
    } finally {
      fs.rmSync(many, { recursive: true });
    }
  });

  it('says nothing about ordinary paths, inside or outside the allowed folders', () => {
    for (const spelled of ['README.md', 'app/src/*.ts', '/tmp/x', '@T/outside/secret.txt', '~', '~/*', 'link-out/x']) {
      expect(check(spelled), spelled).toBeUndefined();
    }
    expect(check('~', 'read')).toBeUndefined();
    expect(check('', 'read')).toBeUndefined();
  });
});

describe('FileGuard: denied patterns', () => {
  it.each([
    ['~/Projects/**/secret-*.txt', 'app/src/secret-1.txt', true],
    ['~/Projects/**/secret-*.txt', 'app/src/Secret-1.txt', false],
    ['~/Projects/app/src/*', 'app/src/index.ts', true],
    ['~/Projects/app/src/*', 'app/src', true],
    ['~/Projects/app/src/*', 'app/srcx', false],
    ['secrets/*', 'app/secrets/a', true],
    ['secrets/*', 'app/secrets', true],
    ['secrets/*', 'app/notsecrets/a', false],
    ['*.key', 'app/deep/x.key', true],
    ['*.key', 'app/x.key.txt', false],
    ['id_*', 'app/id_rsa', true],
    ['@T/home/Projects/app/README.md', 'app/README.md', true],
    ['@T/home/Projects/app/README.md', 'app/README.mdx', false],
    ['.git/**', 'app/.git/config', true],
  ])('%s denies %s: %s', (pattern, target, denied) => {
    const guard = new FileGuard({
      platform: 'linux',
      homeDir: tree.home,
      security: { ...tree.narrow, denied_patterns: [fill(pattern)] },
      protectedPaths: [],
    });
    const verdict = guard.check(target, 'write', fill(P));
    expect(verdict.allowed, verdict.reason?.en).toBe(!denied);
  });
});

describe('FileGuard: denied patterns whose folder is a symlink', () => {
  it('covers the real folder too', () => {
    const guard = new FileGuard({
      platform: 'linux',
      homeDir: tree.home,
      security: { ...tree.narrow, denied_patterns: ['~/Desktop/secret/**'] },
      protectedPaths: [],
    });
    expect(guard.check('~/Desktop/secret/x', 'write', fill(P)).reason?.en).toMatch(/denied pattern/);
    expect(guard.check(fill('@T/desktop-real/secret/x'), 'write', fill(P)).reason?.en).toMatch(/denied pattern/);
    expect(guard.check(fill('@T/desktop-real/secret'), 'write', fill(P)).reason?.en).toMatch(/denied pattern/);
    expect(guard.check(fill('@T/desktop-real/public/x'), 'write', fill(P)).allowed).toBe(true);
  });
});

/**
 * delete_file removes a symlink, not its target: with followFinal false the last name is judged
 * where it is (the folders above it still resolved), as lstat sees it.
 */
describe('FileGuard: a final symlink kept where it is (followFinal: false)', () => {
  const keep = { followFinal: false };
  /** The entry itself, found without the guard's resolver: the C library's realpath of its folder. */
  const independentEntry = (text: string) => {
    const joined = joinedPath(text, fill(P), tree.home, 'linux');
    return path.join(fs.realpathSync.native(path.dirname(path.resolve(joined))), path.basename(path.resolve(joined)));
  };

  it('resolves the folders above the last name and keeps a final link as it is', () => {
    for (const [text, real] of [
      ['link-out', `${P}/link-out`],
      ['link-file-out', `${P}/link-file-out`],
      ['link-src', `${P}/link-src`],
      ['link-chain-out', `${P}/link-chain-out`],
      ['link-in/src', `${P}/app/src`],
      ['link-in/src/index.ts', `${P}/app/src/index.ts`],
      ['link-ssh/id_rsa', '@H/.ssh/id_rsa'],
      ['~/Desktop', '@H/Desktop'],
      ['link-out/.', `${P}/link-out`],
    ] as const) {
      const resolved = guards.narrow.resolve(text, fill(P), keep);
      expect(resolved.real, text).toBe(fill(real));
      expect(resolved.exists, text).toBe(true);
      expect(resolved.real, text).toBe(independentEntry(text));
    }
    // A link kept as it is is there even when what it points to is not.
    expect(guards.narrow.resolve('dangling-out', fill(P), keep)).toMatchObject({
      real: fill(`${P}/dangling-out`),
      exists: true,
    });
    expect(fs.lstatSync(guards.narrow.resolve('link-out', fill(P), keep).real).isSymbolicLink()).toBe(true);
  });

  it('handles `..` as always: a link followed by `..` is still followed', () => {
    expect(guards.narrow.resolve('link-out/..', fill(P), keep).real).toBe(tree.root);
    expect(guards.narrow.resolve('link-out/../new.txt', fill(P), keep).real).toBe(fill('@T/new.txt'));
    expect(guards.narrow.resolve('link-in/..', fill(P), keep).real).toBe(fill(P));
  });

  it('follows a final link by default, as before', () => {
    expect(guards.narrow.resolve('link-out', fill(P)).real).toBe(fill('@T/outside'));
    expect(guards.narrow.resolve('link-out', fill(P), { followFinal: true }).real).toBe(fill('@T/outside'));
    expect(guards.narrow.resolve('dangling-out', fill(P)).exists).toBe(false);
  });

  it('allows a link in an allowed folder whatever it points to', () => {
    // link-config points to NextAI's config.json (which also has a hard link in the tree):
    // removing the symlink leaves the file and its other names alone.
    for (const text of ['link-out', 'link-file-out', 'dangling-out', 'link-chain-out', 'link-config', 'link-ssh']) {
      expect(guards.narrow.check(text, 'write', fill(P)).allowed, text).toBe(false);
      const verdict = guards.narrow.check(text, 'write', fill(P), undefined, keep);
      expect(verdict, text).toMatchObject({ allowed: true, real: fill(`${P}/${text}`) });
    }
    // A loop is only a loop when followed; the link itself is an ordinary entry.
    expect(guards.narrow.check('loop-a', 'write', fill(P), undefined, keep).allowed).toBe(true);
    expect(guards.narrow.check('loop-a/x', 'write', fill(P), undefined, keep).reason?.en).toMatch(/more than 40/);
  });

  it('refuses a link in a denied or outside place even though its target is allowed', () => {
    const inSsh = path.join(tree.home, '.ssh', 'link-back');
    const outside = path.join(tree.root, 'outside', 'link-back');
    fs.symlinkSync(path.join(tree.home, 'Projects/app/README.md'), inSsh);
    fs.symlinkSync(path.join(tree.home, 'Projects/app/README.md'), outside);
    try {
      // Reached through an allowed path (link-ssh), so only the link's own place shows the denial.
      expect(guards.narrow.check('link-ssh/link-back', 'write', fill(P)).allowed).toBe(true);
      const viaLink = guards.narrow.check('link-ssh/link-back', 'write', fill(P), undefined, keep);
      expect(viaLink).toMatchObject({ allowed: false, real: inSsh });
      expect(viaLink.reason?.en).toMatch(/denied pattern "~\/\.ssh\/\*"/);

      expect(guards.narrow.check(outside, 'write', fill(P)).allowed).toBe(true);
      const out = guards.narrow.check(outside, 'write', fill(P), undefined, keep);
      expect(out).toMatchObject({ allowed: false, real: outside });
      expect(out.reason?.en).toMatch(/outside the folders NextAI may use/);
      expect(guards.narrow.check('link-out/link-back', 'write', fill(P), undefined, keep).allowed).toBe(false);
    } finally {
      fs.unlinkSync(inSsh);
      fs.unlinkSync(outside);
    }
  });

  it('refuses a link inside NextAI’s own folders and applies a grant to the link’s own place', () => {
    const own = path.join(tree.home, '.nextai-agent', 'link-out');
    fs.symlinkSync(path.join(tree.home, 'Projects/app/README.md'), own);
    try {
      expect(guards.wide.check(own, 'write', fill(P), undefined, keep).layer).toBe('protected_files');
      // Through link-protected (a link to ~/.nextai-agent) only the link's own place is protected.
      expect(guards.wide.check('link-protected/link-out', 'write', fill(P)).allowed).toBe(true);
      const verdict = guards.wide.check('link-protected/link-out', 'write', fill(P), undefined, keep);
      expect(verdict).toMatchObject({ allowed: false, layer: 'protected_files', real: own });
    } finally {
      fs.unlinkSync(own);
    }
    const granted = { allowed_directories: [fill(`${P}/app`)] };
    expect(guards.narrow.check('link-in', 'write', fill(P), granted).allowed).toBe(true);
    expect(guards.narrow.check('link-in', 'write', fill(P), granted, keep).reason?.en).toMatch(/this task was granted/);
  });
});

/**
 * macOS and Windows rules end to end. Their paths do not exist on this host, so the resolver
 * takes them as text and only the comparison rules are exercised.
 */
describe('FileGuard on macOS and Windows (comparison rules)', () => {
  const mac = () =>
    new FileGuard({
      platform: 'macos',
      homeDir: '/Users/me',
      security: tree.narrow,
      protectedPaths: ['/Users/me/.nextai-agent'],
    });
  const win = (security: SecurityConfig = tree.narrow) =>
    new FileGuard({
      platform: 'windows',
      homeDir: 'C:\\Users\\me',
      security,
      protectedPaths: ['C:\\Users\\me\\.nextai-agent'],
    });

  it.each([
    ['/Users/me/Projects/a.txt', true],
    ['/users/ME/projects/a.txt', true],
    ['/USERS/me/PROJECTS', true],
    ['/Users/me/ProjectsX/a.txt', false],
    ['/Users/me/Projects/../Desktop/x', true],
    ['/Users/me/Projects/../.ssh/id_rsa', false],
    ['/Users/me/Projects/App/NODE_MODULES/x', false],
    ['/Users/me/Projects/a.PEM', false],
    ['/Users/me/.NEXTAI-AGENT/config.json', false],
  ])('macOS %s → allowed %s', (input, allowed) => {
    expect(mac().check(input, 'write', '/Users/me').allowed).toBe(allowed);
  });

  it('flags macOS system locations under /private', () => {
    const verdict = mac().checkPath('/private/etc/crontab', 'write', '/Users/me');
    expect(verdict).toMatchObject({ risk: 'critical' });
  });

  it.each([
    ['C:\\Users\\me\\Projects\\a.txt', true],
    ['c:\\users\\ME\\projects\\a.txt', true],
    ['C:/Users/me/Projects/a.txt', true],
    ['~\\Projects\\a.txt', true],
    ['Projects\\a.txt', true],
    ['\\\\?\\C:\\Users\\me\\Projects\\a.txt', true],
    ['C:\\Users\\me\\Projects.\\a.txt', true],
    ['C:\\Users\\me\\ProjectsX\\a.txt', false],
    ['D:\\Users\\me\\Projects\\a.txt', false],
    ['..\\..\\Windows\\System32\\drivers\\etc\\hosts', false],
    ['C:\\Users\\me\\Projects\\..\\..\\..\\Windows', false],
    ['C:\\Users\\me\\Projects\\app\\node_modules\\x.js', false],
    ['C:\\Users\\me\\Projects\\app\\Node_Modules\\x.js', false],
    ['C:\\Users\\me\\.nextai-agent\\config.json', false],
    ['C:\\Users\\me\\.nextai-agent:secret', false],
  ])('Windows %s → allowed %s', (input, allowed) => {
    expect(win().check(input, 'write', 'C:\\Users\\me').allowed).toBe(allowed);
  });

  it('keeps NextAI’s files and the denied patterns on Windows with the whole home allowed', () => {
    const guard = win({ ...tree.wide });
    expect(guard.check('C:\\Users\\me\\.nextai-agent\\config.json::$DATA', 'read', 'C:\\').layer).toBe(
      'protected_files',
    );
    expect(guard.check('C:\\Users\\me\\.NextAI-Agent.\\data.db', 'read', 'C:\\').layer).toBe('protected_files');
    expect(guard.check('C:\\Users\\me', 'write', 'C:\\').layer).toBe('protected_files');
    expect(guard.check('C:\\Users\\me\\.ssh.\\id_rsa', 'read', 'C:\\').reason?.en).toMatch(/denied pattern/);
    expect(guard.check('c:\\users\\me\\.SSH\\id_rsa', 'read', 'C:\\').reason?.en).toMatch(/denied pattern/);
    expect(guard.check('C:\\Users\\me\\.ssh', 'read', 'C:\\').reason?.en).toMatch(/denied pattern/);
    expect(guard.check('C:\\Users\\me\\_netrc', 'read', 'C:\\').sensitive).toBeTruthy();
    expect(() => guard.check('C:foo', 'read', 'C:\\')).toThrow(/drive's current folder/);
    expect(() => guard.check('\\\\.\\PhysicalDrive0', 'write', 'C:\\')).toThrow(/device path/);
  });
});
