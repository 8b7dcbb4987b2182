import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema, type EventData, type SecurityConfig } from '@nextai/shared';

import { dataPaths } from '../../core/paths.js';
import type { Desktop } from '../../platform/desktop.js';
import { createFakeDesktop } from '../../platform/fake-desktop.js';
import { createLinuxTrash } from '../../platform/linux/trash.js';
import { FileGuard } from '../../policy/guards/file-guard.js';
import { testServices, unguardedFiles } from '../test-support.js';
import type { HostServices } from '../types.js';

export interface FileFixture {
  /** A fresh folder standing in for the home directory. */
  home: string;
  dataDir: string;
  /** XDG_DATA_HOME of the real Linux trash used by the services. */
  dataHome: string;
  services: HostServices;
  events: EventData<'file.changed'>[];
  /** Writes a file under home (parents created) and returns its absolute path. */
  put(relative: string, content: string | Buffer): string;
  cleanup(): void;
}

/** Services around a temporary home, data directory and a real freedesktop trash in a temporary XDG_DATA_HOME. */
export function fileFixture(
  options: {
    security?: Partial<SecurityConfig>;
    desktop?: Desktop;
    /**
     * The real file guard (the one the policy decides with), with the data directory as NextAI's
     * own files, instead of one that allows every path.
     */
    guarded?: boolean;
  } = {},
): FileFixture {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-files-')));
  const home = path.join(root, 'home');
  const dataDir = path.join(home, '.nextai-agent');
  const dataHome = path.join(root, 'xdg-data');
  fs.mkdirSync(dataDir, { recursive: true });
  const base = createFakeDesktop().desktop;
  const desktop = options.desktop ?? { ...base, trash: createLinuxTrash({ XDG_DATA_HOME: dataHome }, home) };
  const events: EventData<'file.changed'>[] = [];
  const security = securityConfigSchema.parse({ ...options.security });
  const guard = new FileGuard({ platform: 'linux', homeDir: home, security, protectedPaths: [dataDir] });
  const services: HostServices = {
    ...testServices(desktop),
    platform: 'linux',
    paths: dataPaths(dataDir, 'linux', 'test'),
    security: () => security,
    homeDir: home,
    fileGuard: options.guarded
      ? { check: (file, access, checkOptions) => guard.check(file, access, home, undefined, checkOptions) }
      : unguardedFiles(home, 'linux'),
    emit: (type, data) => {
      if (type === 'file.changed') events.push(data as EventData<'file.changed'>);
    },
  };
  return {
    home,
    dataDir,
    dataHome,
    services,
    events,
    put(relative, content) {
      const file = path.join(home, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
