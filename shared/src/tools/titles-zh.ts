import type { ToolName } from './catalog.js';

/**
 * Each tool's title in Chinese, for the side panel's cards in 中文. The English title lives in
 * the tool's declaration; the type refuses a tool left out here.
 */
export const TOOL_TITLES_ZH: Record<ToolName, string> = {
  screenshot: '截屏',
  screen_ocr: '识别屏幕文字',
  element_locate: '在屏幕上查找元素',
  mouse_move: '移动鼠标',
  left_click: '单击',
  right_click: '右键单击',
  double_click: '双击',
  mouse_drag: '拖动',
  scroll: '滚动',
  type_text: '输入文字',
  key_press: '按键',
  hotkey: '系统快捷键',
  app_launch: '启动应用',
  app_switch: '切换应用',
  app_list: '列出运行中的应用',
  app_close: '关闭应用',
  window_manage: '调整窗口',
  bash_execute: '执行命令',
  bash_session: '管理终端会话',
  file_read: '读取文件',
  file_write: '写入文件',
  file_edit: '编辑文件',
  file_search: '搜索文件',
  file_watch: '监视文件',
  create_directory: '创建文件夹',
  delete_file: '删除文件',
  browser_navigate: '打开网页',
  browser_interact: '操作网页',
  browser_extract: '读取网页',
  browser_snapshot: '查看网页结构',
  browser_tabs: '管理标签页',
  clipboard_read: '读取剪贴板',
  clipboard_write: '写入剪贴板',
  notification_send: '发送通知',
  system_info: '系统信息',
  ask_user: '询问你',
  todo_write: '更新计划',
  web_fetch: '获取网页',
};

/** The title of a tool in the panel's language; the English one for a name it does not know. */
export function toolTitleIn(locale: string, name: string, englishTitle: string): string {
  if (!locale.startsWith('zh')) return englishTitle;
  return (TOOL_TITLES_ZH as Record<string, string | undefined>)[name] ?? englishTitle;
}
