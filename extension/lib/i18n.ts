/**
 * Strings of the extension's pages, in the two languages the product ships. The page follows
 * the browser language (issue #6 adds a switch in settings and moves every screen here).
 */
const en = {
  appName: 'NextAI Agent',
  statusConnected: 'Connected',
  statusConnecting: 'Connecting…',
  statusRestarting: 'Restarting the daemon…',
  statusDisconnected: 'Not connected',
  hostMissingTitle: 'Connect NextAI to this computer',
  hostMissingBody:
    'The extension talks to a small program on your computer (the NextAI host). It is not installed for this browser yet. In the NextAI Agent folder, run:',
  disconnectedTitle: 'Cannot reach the NextAI host',
  copy: 'Copy',
  copied: 'Copied',
  checkAgain: 'Check again',
  retryIn: 'Next automatic try in {seconds}s',
  hostTitle: 'Host',
  hostVersion: 'Version',
  hostPlatform: 'Platform',
  hostDataDir: 'Data directory',
  hostPid: 'Daemon process',
  hostSince: 'Running since',
  computerTitle: 'This computer',
  refresh: 'Refresh',
  loading: 'Loading…',
  os: 'System',
  cpu: 'CPU',
  memory: 'Memory',
  disks: 'Disks',
  network: 'Network',
  displays: 'Displays',
  cores: '{count} cores',
  used: '{percent}% used',
  free: '{free} GiB free of {total} GiB',
  noDisplays: 'No display found',
  activityTitle: 'Activity',
  noActivity: 'Nothing yet.',
  toolFailed: 'The tool failed: {message}',
} as const;

type MessageKey = keyof typeof en;

const zhCN: Record<MessageKey, string> = {
  appName: 'NextAI Agent',
  statusConnected: '已连接',
  statusConnecting: '正在连接…',
  statusRestarting: '正在重启守护进程…',
  statusDisconnected: '未连接',
  hostMissingTitle: '将 NextAI 连接到这台电脑',
  hostMissingBody:
    '扩展需要与电脑上的一个小程序（NextAI 主机）通信，但它尚未为此浏览器安装。请在 NextAI Agent 目录中运行：',
  disconnectedTitle: '无法连接到 NextAI 主机',
  copy: '复制',
  copied: '已复制',
  checkAgain: '重新检查',
  retryIn: '{seconds} 秒后自动重试',
  hostTitle: '主机',
  hostVersion: '版本',
  hostPlatform: '平台',
  hostDataDir: '数据目录',
  hostPid: '守护进程',
  hostSince: '启动时间',
  computerTitle: '这台电脑',
  refresh: '刷新',
  loading: '加载中…',
  os: '系统',
  cpu: '处理器',
  memory: '内存',
  disks: '磁盘',
  network: '网络',
  displays: '显示器',
  cores: '{count} 核',
  used: '已用 {percent}%',
  free: '可用 {free} GiB，共 {total} GiB',
  noDisplays: '未发现显示器',
  activityTitle: '活动',
  noActivity: '暂无活动。',
  toolFailed: '工具执行失败：{message}',
};

export type Locale = 'en' | 'zh-CN';

export function pickLocale(language: string): Locale {
  return language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

export function translator(locale: Locale) {
  const table: Record<MessageKey, string> = locale === 'zh-CN' ? zhCN : en;
  return (key: MessageKey, vars: Record<string, string | number> = {}): string =>
    table[key].replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}

export type Translate = ReturnType<typeof translator>;
