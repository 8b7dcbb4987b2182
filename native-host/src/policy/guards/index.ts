import type { ShellGuards } from '../verdicts.js';
import type { DomainGuard } from './domains.js';
import type { FileGuard } from './file-guard.js';

export { APP_NAME_ALIASES, AppGuard, appSegments, type AppVerdict } from './apps.js';
export {
  compileDomainPattern,
  DOMAIN_CATEGORY_LISTS,
  DomainGuard,
  DomainPatternSet,
  intersectDomainLists,
  matchDomainPattern,
  patternCovers,
  parseWebAddress,
  type DomainRestrictions,
  type DomainVerdict,
} from './domains.js';
export {
  expandBraces,
  expandGlob,
  FileGuard,
  globReach,
  isGlob,
  type FileGuardOptions,
  type FileRestrictions,
  type FileVerdict,
} from './file-guard.js';
export { caseInsensitive, comparablePath, expandHome, isPathInside, lexicalAbsolute, pathApiFor } from './paths.js';
export { MAX_SYMLINK_HOPS, resolvePath, type ResolvedPath } from './resolve.js';
export { SENSITIVE_LOCATIONS, sensitivePathReason, type SensitiveLocation } from './sensitive.js';

/** What the shell analyser asks about the paths and URLs it finds in a command. */
export function shellGuards(files: FileGuard, domains: DomainGuard): ShellGuards {
  return {
    checkPath: (path, access, cwd) => files.checkPath(path, access, cwd),
    checkUrl: (url) => domains.checkUrl(url),
  };
}
