import type { Platform, SecurityConfig } from '@nextai/shared';

import type { AssessEnv } from './assess.js';
import { programResolver, type ProgramResolver } from './channels/program-path.js';
import { AppGuard, DomainGuard, FileGuard } from './guards/index.js';
import type { SandboxView } from './sandbox-plan.js';
import { analyzeShellCommand } from './shell/index.js';

/**
 * Builds the guards for a security configuration, once per configuration (config.json reloads
 * replace the object, so identity tells when to rebuild).
 */
export function assessEnvFactory(
  platform: Platform,
  homeDir: string,
  guarded: string[],
  shellCwd?: AssessEnv['shellCwd'],
  sandbox?: SandboxView,
  resolveProgram: ProgramResolver = programResolver({
    platform,
    homeDir,
    searchPath: process.env.PATH,
    pathExt: process.env.PATHEXT,
  }),
): (security: SecurityConfig) => AssessEnv {
  let cached: { security: SecurityConfig; env: AssessEnv } | undefined;
  return (security) => {
    if (cached?.security === security) return cached.env;
    const files = new FileGuard({ platform, homeDir, security, protectedPaths: guarded });
    const domains = new DomainGuard(security);
    const apps = new AppGuard(security);
    const env: AssessEnv = {
      platform,
      homeDir,
      cwd: homeDir,
      ...(shellCwd ? { shellCwd } : {}),
      maxFileSize: files.maxFileSize,
      checkFile: (path, access, cwd, restrictions, options) => files.check(path, access, cwd, restrictions, options),
      checkDomain: (url, restrictions) => domains.check(url, restrictions),
      checkApp: (name) => apps.check(name),
      shellGuards: {
        checkPath: (path, access, cwd) => files.checkPath(path, access, cwd),
        checkUrl: (url) => domains.checkUrl(url),
      },
      analyzeShell: (command, guards, options) => analyzeShellCommand(command, guards, options),
      ...(sandbox ? { sandbox } : {}),
      resolveProgram,
    };
    cached = { security, env };
    return env;
  };
}
