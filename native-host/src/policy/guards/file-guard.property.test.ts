import { AppError } from '@nextai/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FileGuard } from './file-guard.js';
import { joinedPath } from './paths.js';
import { buildTestTree, independentReal, independentRoots, insideAny, type TestTree } from './test-tree.js';

/**
 * Random paths built from the pieces that cause trouble — `..`, `.`, `~`, empty segments,
 * symlinks out, in, to `..`, dangling and looping — never make check() throw anything but
 * INVALID_INPUT, and never allow a path whose independently resolved location is outside the
 * allowed folders.
 */
const SEGMENTS = [
  '..', '.', '', '~', 'a', 'b', 'app', 'src', 'Projects', 'ProjectsX', 'Desktop', 'Documents', 'NextAI', 'home',
  'outside', '.ssh', '.nextai-agent', 'node_modules', '%2e%2e', '...', 'link-out', 'link-in', 'link-in-rel',
  'link-home', 'link-root', 'link-tmp', 'link-src', 'rel-up', 'dangling-out', 'dangling-in', 'dangling-rel-out',
  'loop-a', 'self', 'chain-6', 'chain-1', 'link-desktop', 'link-protected', 'link-ssh', 'link-file-out', 'sub',
  'link-up', 'README.md', 'etc', 'tmp', '~root', 'a\0',
]; // prettier-ignore

let tree: TestTree;
let guards: FileGuard[];

beforeAll(() => {
  tree = buildTestTree();
  guards = [tree.narrow, tree.wide].map(
    (security) =>
      new FileGuard({ platform: 'linux', homeDir: tree.home, security, protectedPaths: tree.protectedPaths }),
  );
});

afterAll(() => tree.remove());

describe('FileGuard.check under random paths', () => {
  it('never throws but INVALID_INPUT and never allows a path outside the allowed folders', () => {
    const pathArbitrary = fc
      .tuple(
        fc.constantFrom('', '/', '~/', '~', '@H/Projects/', '@T/', '//'),
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 14 }),
        fc.constantFrom('', '/'),
      )
      .map(([prefix, segments, suffix]) => `${prefix}${segments.join('/')}${suffix}`);
    const cwdArbitrary = fc.constantFrom(
      '@H/Projects',
      '@H/Projects/app/src',
      '@H/Projects/link-out',
      '@H/Projects/link-in',
      '@H/Desktop',
      '@H',
      '@T/outside',
      '/',
    );

    let allowedSeen = 0;
    fc.assert(
      fc.property(
        pathArbitrary,
        cwdArbitrary,
        fc.constantFrom(0, 1),
        fc.constantFrom('read', 'write'),
        (raw, rawCwd, which, access) => {
          const fill = (text: string) => text.replaceAll('@T', tree.root).replaceAll('@H', tree.home);
          const pathText = fill(raw);
          const cwd = fill(rawCwd);
          const guard = guards[which] as FileGuard;
          const security = which === 0 ? tree.narrow : tree.wide;
          let verdict;
          try {
            verdict = guard.check(pathText, access as 'read' | 'write', cwd);
          } catch (error) {
            expect(error).toBeInstanceOf(AppError);
            expect((error as AppError).code).toBe('INVALID_INPUT');
            return;
          }
          // The shell-side check must not throw either.
          guard.checkPath(pathText, access as 'read' | 'write', cwd);
          if (!verdict.allowed) return;
          allowedSeen += 1;
          const roots = independentRoots(security.allowed_directories, tree.home);
          const independent = independentReal(joinedPath(pathText, cwd, tree.home, 'linux'));
          expect(insideAny(independent.real, roots), `${pathText} → ${independent.real}`).toBe(true);
          expect(insideAny(verdict.real, roots), `${pathText} → ${verdict.real}`).toBe(true);
          expect(verdict.real.startsWith(`${tree.home}/.nextai-agent`)).toBe(false);
        },
      ),
      { numRuns: 3000 },
    );
    // The property means something only if plenty of random paths were allowed.
    expect(allowedSeen).toBeGreaterThan(300);
  });

  it('never throws on arbitrary strings either', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (raw) => {
        try {
          guards[0]?.check(raw, 'write', `${tree.home}/Projects`);
        } catch (error) {
          expect((error as AppError).code).toBe('INVALID_INPUT');
        }
        guards[0]?.checkPath(raw, 'write', `${tree.home}/Projects`);
      }),
      { numRuns: 2000 },
    );
  });
});
