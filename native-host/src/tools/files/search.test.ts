import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { callTool, testContext } from '../test-support.js';
import { createFileHandlers } from './index.js';
import { fileSearch } from './search.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

let fixture: FileFixture;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];

beforeEach(() => {
  fixture = fileFixture();
  handlers = createFileHandlers(fixture.services).handlers;
  fixture.put('project/src/main.ts', 'import x from "y";\nconst TODO_one = 1;\n// TODO: fix me\n');
  fixture.put('project/src/util/helpers.ts', 'export const ok = true;\r\n// todo lower case\r\n');
  fixture.put('project/README.md', '# Project\nTODO write docs\n');
  fixture.put('project/node_modules/dep/index.ts', '// TODO in a dependency\n');
  fixture.put('project/.git/HEAD', 'TODO in git\n');
  fixture.put('project/target/CACHEDIR.TAG', 'Signature: 8a477f597d28d172789f06886806bc55\n');
  fixture.put('project/target/debug/build.ts', '// TODO in a build cache\n');
  fixture.put('project/venv/pyvenv.cfg', 'home = /usr/bin\n');
  fixture.put('project/venv/lib/site.ts', '// TODO in a virtualenv\n');
  fixture.put('project/image.bin', Buffer.concat([Buffer.from('TODO'), Buffer.alloc(10), Buffer.from('TODO')]));
  fixture.put('project/.env.ts', 'TODO hidden\n');
});
afterEach(() => fixture.cleanup());

type Output = { results: { path: string; line?: number; text?: string }[]; truncated: boolean; message?: string };
const search = async (input: Record<string, unknown>) =>
  (await callTool('file_search', handlers.file_search, { directory: 'project', ...input })) as Output;
const rel = (file: string) => path.relative(path.join(fixture.home, 'project'), file);

describe('file_search by name', () => {
  it('matches a slash-less glob at any depth, hidden files included, skipping dependency, VCS and cache folders', async () => {
    const { results, truncated } = await search({ pattern: '*.ts' });
    expect(results.map((result) => rel(result.path)).sort()).toEqual(['.env.ts', 'src/main.ts', 'src/util/helpers.ts']);
    expect(truncated).toBe(false);
  });

  it('matches a glob with a slash against the path relative to the folder', async () => {
    const { results } = await search({ pattern: 'src/*.ts' });
    expect(results.map((result) => rel(result.path))).toEqual(['src/main.ts']);
  });

  it('lists folders too, shallow ones first', async () => {
    const { results } = await search({ pattern: '*' });
    const names = results.map((result) => rel(result.path));
    expect(names.indexOf('src')).toBeLessThan(names.indexOf('src/util'));
    expect(names).not.toContain('node_modules');
  });

  it('searches a skipped folder when the pattern names it', async () => {
    const { results } = await search({ pattern: 'node_modules/**/*.ts' });
    expect(results.map((result) => rel(result.path))).toEqual(['node_modules/dep/index.ts']);
  });

  it('stops at max_results and says it is truncated', async () => {
    const { results, truncated, message } = await search({ pattern: '*', max_results: 2 });
    expect(results).toHaveLength(2);
    expect(truncated).toBe(true);
    expect(message).toContain('More than 2 results');
  });

  it('lists a symlinked folder by name but does not follow it (no loops)', async () => {
    fs.symlinkSync(path.join(fixture.home, 'project'), path.join(fixture.home, 'project/src/loop'));
    const { results } = await search({ pattern: '*.ts' });
    expect(results.map((result) => rel(result.path)).sort()).toEqual(['.env.ts', 'src/main.ts', 'src/util/helpers.ts']);
    const loops = await search({ pattern: 'loop' });
    expect(loops.results.map((result) => rel(result.path))).toEqual(['src/loop']);
  });
});

describe('file_search by content', () => {
  it('finds lines by regular expression with line numbers, skipping binaries and dependency folders', async () => {
    const { results, message } = await search({ type: 'content', pattern: 'TODO[: ]' });
    expect(results.map((result) => [rel(result.path), result.line, result.text])).toEqual([
      ['.env.ts', 1, 'TODO hidden'],
      ['README.md', 2, 'TODO write docs'],
      ['src/main.ts', 3, '// TODO: fix me'],
    ]);
    expect(message).toContain('1 binary');
  });

  it('takes (?i) for case-insensitive and strips CR from CRLF lines', async () => {
    const { results } = await search({ type: 'content', pattern: '(?i)todo lower CASE$', directory: 'project/src' });
    expect(results).toEqual([
      { path: path.join(fixture.home, 'project/src/util/helpers.ts'), line: 2, text: '// todo lower case' },
    ]);
  });

  it('refuses an invalid regular expression with INVALID_INPUT', async () => {
    const error = await search({ type: 'content', pattern: 'foo(' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_INPUT');
    expect((error as AppError).message).toContain('not a valid regular expression');
  });

  it('searches one file when given a file', async () => {
    const { results } = await search({ type: 'content', pattern: 'docs', directory: 'project/README.md' });
    expect(results).toEqual([{ path: path.join(fixture.home, 'project/README.md'), line: 2, text: 'TODO write docs' }]);
  });

  it('ends early within its budget and says so, instead of running on', async () => {
    const result = await fileSearch(
      fixture.services,
      { directory: 'project', pattern: '*', type: 'name', max_results: 1000 },
      testContext(),
      { timeMs: 60_000, entries: 3, contentBytes: 1 << 30, fileBytes: 1 << 20 },
    );
    expect(result.truncated).toBe(true);
    expect(result.message).toContain('looked at 3 entries');
  });

  it('stops when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new AppError('EMERGENCY_STOPPED', 'stop'));
    const error = await fileSearch(
      fixture.services,
      { directory: 'project', pattern: 'x', type: 'content', max_results: 10 },
      { signal: controller.signal },
    ).catch((caught: unknown) => caught);
    expect((error as AppError).code).toBe('EMERGENCY_STOPPED');
  });

  it('says NOT_FOUND for a folder that does not exist', async () => {
    const error = await search({ directory: 'nowhere', pattern: '*' }).catch((caught: unknown) => caught);
    expect((error as AppError).code).toBe('NOT_FOUND');
  });
});
