/** Strings of the banner shown while the daemon cannot save. Every key in both languages. */

export const en = {
  storageTitle: 'Cannot save',
  storageTitleWhy: 'Cannot save: {problem}',
  storageProblem_disk_full: 'the disk is full',
  storageProblem_read_only: 'the database is read-only',
  storageProblem_locked: 'another program holds the database',
  storageProblem_permission: 'no permission for the data folder',
  storageProblem_io_error: 'the disk reported an error',
  storageProblem_replaced: 'the database file was replaced; NextAI restarts',
  storageSince: 'Since {time} · {code}',
  storageMeanwhile: 'Reading still works; changes wait or are refused.',
} as const;

export const zhCN: Record<keyof typeof en, string> = {
  storageTitle: '无法保存',
  storageTitleWhy: '无法保存：{problem}',
  storageProblem_disk_full: '磁盘已满',
  storageProblem_read_only: '数据库变成了只读',
  storageProblem_locked: '另一个程序占用了数据库',
  storageProblem_permission: '无权打开数据文件夹',
  storageProblem_io_error: '磁盘报告了错误',
  storageProblem_replaced: '数据库文件被替换了；NextAI 正在重启',
  storageSince: '自 {time} 起 · {code}',
  storageMeanwhile: '读取照常；更改会等待或被拒绝。',
};
