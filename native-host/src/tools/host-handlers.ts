import { systemInfoHandler } from './system-info.js';
import { notImplementedYet, type HostHandlers } from './types.js';

const desktop = (what: string) => notImplementedYet(4, what);

/**
 * Every host tool of the catalog and what runs it. The `satisfies` clause makes a tool added to
 * the catalog without an entry here — or an entry for a tool that does not exist — a type error.
 */
export const hostHandlers = {
  screenshot: desktop('Taking screenshots'),
  screen_ocr: desktop('Reading text on screen (OCR)'),
  element_locate: desktop('Locating elements on screen'),
  mouse_move: desktop('Moving the mouse'),
  left_click: desktop('Clicking'),
  right_click: desktop('Right-clicking'),
  double_click: desktop('Double-clicking'),
  mouse_drag: desktop('Dragging'),
  scroll: desktop('Scrolling'),
  type_text: desktop('Typing text'),
  key_press: desktop('Pressing keys'),
  hotkey: desktop('Sending hotkeys'),
  app_launch: desktop('Launching apps'),
  app_switch: desktop('Switching apps'),
  app_list: desktop('Listing apps'),
  app_close: desktop('Closing apps'),
  window_manage: desktop('Arranging windows'),
  bash_execute: desktop('Running shell commands'),
  bash_session: desktop('Managing shell sessions'),
  file_read: desktop('Reading files'),
  file_write: desktop('Writing files'),
  file_edit: desktop('Editing files'),
  file_search: desktop('Searching files'),
  file_watch: desktop('Watching files'),
  clipboard_read: desktop('Reading the clipboard'),
  clipboard_write: desktop('Writing the clipboard'),
  notification_send: desktop('Sending notifications'),
  create_directory: desktop('Creating folders'),
  delete_file: desktop('Deleting files'),
  system_info: systemInfoHandler,
  ask_user: notImplementedYet(5, 'Asking the person (it belongs to agent runs)'),
  todo_write: notImplementedYet(5, 'The plan tool (it belongs to agent runs)'),
  web_fetch: notImplementedYet(7, 'Fetching web pages'),
} satisfies HostHandlers;
