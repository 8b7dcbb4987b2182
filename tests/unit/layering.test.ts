import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });
const CONFIG = path.join(root, 'eslint.config.js');
/** The folder order the layering rule is built from (exported by eslint.config.js). */
const { HOST_LAYERS } = (await import(CONFIG)) as { HOST_LAYERS: string[] };

/** Lints `code` as if it lived at `file` and returns the rule ids that fired. */
async function rulesFiredFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((message) => message.ruleId ?? 'parse-error');
}

describe('layering rules', () => {
  it('keeps Node out of shared/', async () => {
    expect(await rulesFiredFor('shared/src/example.ts', "import fs from 'node:fs';\nexport const x = fs;\n")).toContain(
      'no-restricted-imports',
    );
    expect(await rulesFiredFor('shared/src/example.ts', "import os from 'os';\nexport const x = os;\n")).toContain(
      'no-restricted-imports',
    );
    expect(await rulesFiredFor('shared/src/example.ts', 'export const x = process.env;\n')).toContain(
      'no-restricted-globals',
    );
  });

  it('keeps browser APIs out of shared/', async () => {
    expect(await rulesFiredFor('shared/src/example.ts', 'export const x = chrome.runtime;\n')).toContain(
      'no-restricted-globals',
    );
    expect(
      await rulesFiredFor(
        'shared/src/example.ts',
        "import { browser } from 'wxt/browser';\nexport const x = browser;\n",
      ),
    ).toContain('no-restricted-imports');
  });

  it('keeps the extension and the native host apart', async () => {
    expect(
      await rulesFiredFor(
        'extension/lib/example.ts',
        "import { main } from '../../native-host/src/cli/main.js';\nexport const x = main;\n",
      ),
    ).toContain('no-restricted-imports');
    expect(
      await rulesFiredFor(
        'native-host/src/example.ts',
        "import { App } from '../../extension/components/app.js';\nexport const x = App;\n",
      ),
    ).toContain('no-restricted-imports');
  });

  it('lets only core/current-platform.ts read process.platform', async () => {
    const code = 'export const os = process.platform;\n';
    expect(await rulesFiredFor('native-host/src/example.ts', code)).toContain('no-restricted-properties');
    expect(await rulesFiredFor('native-host/src/core/current-platform.ts', code)).not.toContain(
      'no-restricted-properties',
    );
  });

  it('accepts runtime-neutral code in shared/', async () => {
    expect(
      await rulesFiredFor('shared/src/example.ts', "import { z } from 'zod';\nexport const schema = z.string();\n"),
    ).toEqual([]);
  });

  it('keeps every folder of native-host/src below the ones that use it', async () => {
    const imports = (target: string) => `import { x } from '${target}';\nexport const y = x;\n`;
    // Base code may not reach up into features, nor features into the wiring.
    expect(await rulesFiredFor('native-host/src/policy/example.ts', imports('../gateway/tool-gateway.js'))).toContain(
      'no-restricted-imports',
    );
    expect(await rulesFiredFor('native-host/src/storage/example.ts', imports('../daemon/daemon.js'))).toContain(
      'no-restricted-imports',
    );
    expect(
      await rulesFiredFor('native-host/src/tools/files/example.ts', imports('../../agent/run-manager.js')),
    ).toContain('no-restricted-imports');
    expect(await rulesFiredFor('native-host/src/core/example.ts', imports('../platform/linux/index.js'))).toContain(
      'no-restricted-imports',
    );
    // Down the layers is the way imports go.
    expect(await rulesFiredFor('native-host/src/gateway/example.ts', imports('../policy/decide.js'))).toEqual([]);
    expect(await rulesFiredFor('native-host/src/daemon/example.ts', imports('../scheduler/scheduler.js'))).toEqual([]);
    expect(await rulesFiredFor('native-host/src/tools/files/example.ts', imports('./locate.js'))).toEqual([]);
  });

  it('gives every folder of native-host/src a place in the layers', () => {
    const folders = fs
      .readdirSync(path.join(root, 'native-host/src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect([...HOST_LAYERS].sort()).toEqual(folders);
  });
});
