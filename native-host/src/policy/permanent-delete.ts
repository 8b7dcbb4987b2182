import fs from 'node:fs';

import { say, type Localized, type RiskLevel } from '@nextai/shared';

/**
 * How risky `delete_file` with `permanent` is for the entry at `real` (its own place: a link is
 * judged as the link, which is all the tool removes). A folder goes with everything in it, past
 * the trash, where nobody can restore it: critical. So does whatever cannot be seen to be a plain
 * file or a link (missing now, unreadable): it may be a folder by the time the tool runs. A single
 * file or link: high.
 */
export function permanentDeletion(real: string): { risk: RiskLevel; reason: Localized } {
  let stats: fs.Stats | undefined;
  try {
    stats = fs.lstatSync(real);
  } catch {
    stats = undefined;
  }
  if (stats !== undefined && !stats.isDirectory()) {
    return { risk: 'high', reason: say('deletes permanently, without the trash', '永久删除，不经过回收站') };
  }
  return {
    risk: 'critical',
    reason: stats
      ? say(
          'deletes a folder and everything in it permanently, without the trash',
          '永久删除一个文件夹及其中的全部内容，不经过回收站',
        )
      : say(
          'deletes permanently, without the trash, something that is not there to look at now (it could be a folder)',
          '永久删除一个现在看不到的对象，不经过回收站（它可能是一个文件夹）',
        ),
  };
}
