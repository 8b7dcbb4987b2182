import type { z } from 'zod';

import { askUser, todoWrite, webFetch } from './catalog-agent.js';
import { appClose, appLaunch, appList, appSwitch, windowManage } from './catalog-apps.js';
import { browserExtract, browserInteract, browserNavigate, browserSnapshot, browserTabs } from './catalog-browser.js';
import { createDirectory, deleteFile, fileEdit, fileRead, fileSearch, fileWatch, fileWrite } from './catalog-files.js';
import {
  doubleClick,
  hotkey,
  keyPress,
  leftClick,
  mouseDrag,
  mouseMove,
  rightClick,
  scroll,
  typeText,
} from './catalog-input.js';
import { elementLocate, screenOcr, screenshot } from './catalog-screen.js';
import { clipboardRead, clipboardWrite, notificationSend, systemInfo } from './catalog-system.js';
import { bashExecute, bashSession } from './catalog-terminal.js';

/** Every tool of the product: the first catalog grouped by category (screen to system), then the additions. */
export const TOOL_CATALOG = [
  screenshot,
  screenOcr,
  elementLocate,
  mouseMove,
  leftClick,
  rightClick,
  doubleClick,
  mouseDrag,
  scroll,
  typeText,
  keyPress,
  hotkey,
  appLaunch,
  appSwitch,
  appList,
  appClose,
  windowManage,
  bashExecute,
  bashSession,
  fileRead,
  fileWrite,
  fileEdit,
  fileSearch,
  fileWatch,
  browserNavigate,
  browserInteract,
  browserExtract,
  clipboardRead,
  clipboardWrite,
  notificationSend,
  systemInfo,
  createDirectory,
  deleteFile,
  browserSnapshot,
  browserTabs,
  askUser,
  todoWrite,
  webFetch,
] as const;

export type AnyTool = (typeof TOOL_CATALOG)[number];
export type ToolName = AnyTool['name'];
export type ToolByName<N extends ToolName> = Extract<AnyTool, { name: N }>;
export type ToolInput<N extends ToolName> = z.output<ToolByName<N>['input']>;
export type ToolOutput<N extends ToolName> = z.output<ToolByName<N>['output']>;

export type HostToolName = Extract<AnyTool, { runsIn: 'host' }>['name'];
export type ExtensionToolName = Extract<AnyTool, { runsIn: 'extension' }>['name'];

const toolsByName: ReadonlyMap<string, AnyTool> = new Map(TOOL_CATALOG.map((tool) => [tool.name, tool]));

export const TOOL_NAMES: readonly ToolName[] = TOOL_CATALOG.map((tool) => tool.name);

export function isToolName(name: string): name is ToolName {
  return toolsByName.has(name);
}

export function getTool<N extends ToolName>(name: N): ToolByName<N>;
export function getTool(name: string): AnyTool | undefined;
export function getTool(name: string): AnyTool | undefined {
  return toolsByName.get(name);
}

/** The title of a tool in the panel's language; the English one for a name it does not know. */
export function toolTitleIn(locale: string, name: string, englishTitle: string): string {
  if (!locale.startsWith('zh')) return englishTitle;
  return getTool(name)?.titleZh ?? englishTitle;
}
