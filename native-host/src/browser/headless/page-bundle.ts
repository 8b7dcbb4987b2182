import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import { AppError } from '@nextai/shared';

/** Inlined by native-host/build.mjs: the page agent bundle (page/build.mjs), the same source the extension injects. */
declare const __NEXTAI_PAGE_AGENT__: string | undefined;

let cached: string | undefined;

export function pageAgentBundle(): string {
  if (cached) return cached;
  if (typeof __NEXTAI_PAGE_AGENT__ === 'string') {
    cached = __NEXTAI_PAGE_AGENT__;
    return cached;
  }
  // Running from source (unit tests, the bench): the bundle `npm run build:page` wrote.
  const file = fileURLToPath(new URL('../../../../page/dist/page-agent.js', import.meta.url));
  if (!fs.existsSync(file)) throw new AppError('UNAVAILABLE', `${file} is missing: run \`npm run build:page\`.`);
  cached = fs.readFileSync(file, 'utf8');
  return cached;
}
