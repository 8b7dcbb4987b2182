import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { failureOf } from '../tools/test-support.js';
import { locate } from '../tools/files/locate.js';
import { fileFixture, type FileFixture } from '../tools/files/test-fixture.js';
import { readUploadFile } from './upload-file.js';

/**
 * browser_interact `upload` reads a file for a web page. The policy allowed
 * ~/Projects/site/report.txt; by the time the call runs, ~/Projects/site may be a link to NextAI's
 * data directory, whose config.json holds the API keys. The file is judged again and read from
 * what was judged.
 */
let fixture: FileFixture;
const read = (file: string) =>
  Promise.resolve().then(() =>
    readUploadFile(file, (input) => locate(fixture.services, input, 'read', 'read').real, 1024 * 1024),
  );

beforeEach(() => {
  fixture = fileFixture({ guarded: true, security: { allowed_directories: ['~/Projects'] } });
  fixture.put('Projects/site/report.txt', 'quarterly numbers\n');
  fs.writeFileSync(path.join(fixture.dataDir, 'report.txt'), 'sk-secret-key\n');
});
afterEach(() => fixture.cleanup());

describe('readUploadFile', () => {
  it('reads an allowed file for the page', async () => {
    const upload = await read('~/Projects/site/report.txt');
    expect(upload).toMatchObject({ name: 'report.txt', mime_type: 'text/plain' });
    expect(Buffer.from(upload.data_base64, 'base64').toString()).toBe('quarterly numbers\n');
  });

  it('refuses when the folder was swapped for a link to the data directory after the decision', async () => {
    const site = path.join(fixture.home, 'Projects', 'site');
    fs.renameSync(site, `${site}.moved`);
    fs.symlinkSync(fixture.dataDir, site);
    const error = await failureOf(read('~/Projects/site/report.txt'));
    expect(error.code).toBe('POLICY_BLOCKED');
    expect(error.message).toContain('The path changed since it was approved');
    expect(error.message).not.toContain('sk-secret-key');
  });
});
