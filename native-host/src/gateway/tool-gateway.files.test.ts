import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema, type TemplateId } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import { createFakeDesktop } from '../platform/fake-desktop.js';
import { assessEnvFactory } from '../policy/assess-env.js';
import { assessInput } from '../policy/assess.js';
import { PolicyStore } from '../policy/policy-store.js';
import { createHostHandlers } from '../tools/host-handlers.js';
import { testServices } from '../tools/test-support.js';
import { ApprovalQueue } from './approvals.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EventLog } from '../storage/event-log.js';
import { ToolGateway, type CallContext } from './tool-gateway.js';

/**
 * A swapped folder, through the one chokepoint with the real file guard: the policy judges
 * `file_write ~/Projects/site/config.json` (allowed: ~/Projects) and asks a person; while the
 * approval card is shown, a background job moves ~/Projects/site away and puts a symlink to
 * NextAI's data directory in its place; the person approves. The write must not land in the data
 * directory's config.json (which holds the API keys and the policy: the proven attack set L4 and
 * `/` allowed that way).
 */
const log = createLogger({ component: 'test', level: 'error' });
let root: string;
let home: string;
let dataDir: string;
let site: string;
let db: Db;
let approvals: ApprovalQueue;
let policy: PolicyStore;
const SECRET = '{"model":{"api_key":"sk-secret-key"}}\n';

beforeEach(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-gateway-files-')));
  home = path.join(root, 'home');
  dataDir = path.join(home, '.nextai-agent');
  site = path.join(home, 'Projects', 'site');
  fs.mkdirSync(site, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(site, 'config.json'), '{"site":true}\n');
  db = await openDatabase(path.join(dataDir, 'data.db'), log);
  approvals = new ApprovalQueue(db, new EventLog(db));
  policy = new PolicyStore(path.join(dataDir, 'config.json'), db, log);
});
afterEach(() => {
  db.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function setup(template: TemplateId) {
  const config = { security: { allowed_directories: ['~/Projects'] }, model: { api_key: 'sk-secret-key' } };
  fs.writeFileSync(policy.configFile, JSON.stringify(config));
  expect(policy.reload().accepted).toBe(true);
  policy.setTemplate(template);
  const before = fs.readFileSync(policy.configFile, 'utf8');
  const security = securityConfigSchema.parse(config.security);
  const env = assessEnvFactory('linux', home, [dataDir])(security);
  // The handlers get the very guard the policy decides with (as daemon.ts wires it).
  const handlers = createHostHandlers({
    ...testServices(createFakeDesktop().desktop),
    paths: dataPaths(dataDir, 'linux'),
    homeDir: home,
    security: () => security,
    fileGuard: { check: (file, access, options) => env.checkFile(file, access, home, undefined, options) },
  }).handlers;
  const gateway = new ToolGateway({
    handlers,
    platform: 'linux',
    paths: dataPaths(dataDir, 'linux'),
    log,
    events: new EventLog(db),
    policy,
    approvals,
    audit: { append: () => undefined },
    emergency: () => ({ active: false }),
    assess: (tool, input, grant) => assessInput(tool, input, env, grant),
    notify: async () => ({ delivered: false, reason: 'tests' }),
    browserClients: () => [],
  });
  const cli: CallContext = { source: 'cli' };
  return { gateway, cli, before };
}

/** Waits for the approval card of the call in flight, lets `meanwhile` happen, then approves. */
async function approveAfter(meanwhile: () => void): Promise<void> {
  await expect.poll(() => approvals.list('pending', 10).length).toBe(1);
  meanwhile();
  const [pending] = approvals.list('pending', 10);
  approvals.answer(pending!.id, { decision: 'approve', scope: 'once' }, 'test');
}

function swapSiteForLinkToDataDir(): void {
  fs.renameSync(site, `${site}.moved`);
  fs.symlinkSync(dataDir, site);
}

describe('a folder swapped for a link to the data directory while the approval card is shown', () => {
  it('file_write: the approved write is refused and the data directory’s config.json is untouched', async () => {
    const { gateway, cli, before } = setup('development');
    const entries = fs.readdirSync(dataDir).sort();
    const call = gateway.call(
      {
        name: 'file_write',
        input: { path: '~/Projects/site/config.json', content: '{"security":{"permission_level":"L4"}}' },
      },
      cli,
    );
    await approveAfter(swapSiteForLinkToDataDir);
    const result = await call;
    expect(result).toMatchObject({ ok: false, error: { code: 'POLICY_BLOCKED' } });
    expect(JSON.stringify(result)).toContain('The path changed since it was approved');
    expect(fs.readFileSync(policy.configFile, 'utf8')).toBe(before);
    expect(fs.readdirSync(dataDir).sort()).toEqual(entries);
    // Nothing landed in the folder that was judged either.
    expect(fs.readFileSync(path.join(`${site}.moved`, 'config.json'), 'utf8')).toBe('{"site":true}\n');
  });

  it('file_read (asked under the strict template): the API key is not read', async () => {
    const { gateway, cli } = setup('strict');
    fs.writeFileSync(path.join(dataDir, 'keys.txt'), SECRET);
    const call = gateway.call({ name: 'file_read', input: { path: '~/Projects/site/keys.txt' } }, cli);
    // Judged while the file does not exist yet in ~/Projects/site: allowed, and asked.
    await approveAfter(swapSiteForLinkToDataDir);
    const result = await call;
    expect(result).toMatchObject({ ok: false, error: { code: 'POLICY_BLOCKED' } });
    expect(JSON.stringify(result)).not.toContain('sk-secret-key');
  });

  it('the same call with no swap is approved and written where it was judged', async () => {
    const { gateway, cli } = setup('development');
    const call = gateway.call(
      { name: 'file_write', input: { path: '~/Projects/site/config.json', content: '{"site":2}' } },
      cli,
    );
    await approveAfter(() => undefined);
    expect(await call).toMatchObject({ ok: true, output: { path: path.join(site, 'config.json') } });
    expect(fs.readFileSync(path.join(site, 'config.json'), 'utf8')).toBe('{"site":2}');
  });
});
