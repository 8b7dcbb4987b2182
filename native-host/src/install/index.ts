/** `nextai install` / `nextai uninstall`: native-messaging host registration. */
export { BROWSERS, BROWSER_CHOICES, MANIFEST_FILE_NAME, browserFamily, browserLocations } from './browsers.js';
export type {
  Browser,
  BrowserChoice,
  BrowserFamily,
  BrowserLocation,
  Environment,
  LocationContext,
} from './browsers.js';
export { buildHostManifest, renderHostManifest } from './manifest.js';
export type { ChromiumHostManifest, FirefoxHostManifest, HostManifest } from './manifest.js';
export {
  defaultNodeSearch,
  launcherFileName,
  renderLauncher,
  renderPosixLauncher,
  renderWindowsLauncher,
} from './launcher.js';
export type { LauncherOptions, NodeSearch } from './launcher.js';
export {
  REG_COMMAND,
  formatWindowsCommand,
  parseRegDefaultValue,
  regAddArgs,
  regDeleteArgs,
  regQueryArgs,
} from './registry.js';
export { buildInstallPlan, buildUninstallPlan } from './plan.js';
export type {
  InstallPlan,
  InstallPlanInput,
  PlannedFile,
  RegistryOperation,
  UninstallFilter,
  UninstallPlan,
} from './plan.js';
export { applyInstallPlan, applyUninstallPlan } from './apply.js';
export type { CommandRunner, UninstallAction, UninstallFailure, UninstallOutcome } from './apply.js';
export { installRecordSchema, readInstallRecord } from './record.js';
export type { InstallRecord, RecordEntry } from './record.js';
export { installNativeHost, uninstallNativeHost } from './install.js';
export type { InstallAction, InstallOptions, InstallReport, UninstallOptions, UninstallReport } from './install.js';
export { formatInstallReport, formatUninstallReport } from './report.js';
