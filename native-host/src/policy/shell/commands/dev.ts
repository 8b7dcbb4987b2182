import path from 'node:path';

import { say, type Localized } from '@nextai/shared';

import {
  checkPath,
  checkUrl,
  checkUrlArguments,
  notesSettingsFile,
  readsWrittenBuildFile,
  report,
  runInner,
  runShellText,
} from '../invocation.js';
import { criticalTreeWrite, isBroadDirectory, resolveShellPath } from '../paths.js';
import type { ShellPhrase } from '../phrases.js';
import type { AnalysisState } from '../state.js';
import { literalWord, type Word } from '../words.js';
import type { Handler } from './types.js';

function operandsOf(args: readonly Word[]): Word[] {
  return args.filter((arg) => arg.value === undefined || !arg.value.startsWith('-'));
}

function isInfo(args: readonly Word[]): boolean {
  return args.length > 0 && args.every((arg) => /^(?:-v|-V|--version|version|-h|--help|help)$/.test(arg.value ?? ''));
}

/**
 * A developer tool that runs project code or installs packages (high), unless its subcommand
 * only prints information (`looks`).
 */
function projectTool(what: ShellPhrase | Localized, looks?: RegExp): Handler {
  return (inv, st) => {
    if (isInfo(inv.args)) return;
    checkUrlArguments(st, inv, inv.args);
    const verb = operandsOf(inv.args)[0]?.value;
    if (looks && verb !== undefined && looks.test(verb)) return;
    report(st, inv, 'high', what);
  };
}

/**
 * npm settings that name a program npm runs or another settings file, and yarn's (berry) that
 * name a file it runs as yarn itself, its plugins, or where packages come from.
 */
const NPM_PROGRAM_KEYS =
  /^(?:script-shell|shell|node-options|git|editor|browser|viewer|onload-script|userconfig|globalconfig|init-module|prefix|cache|registry|@[\w-]+:registry|yarnpath|npmregistryserver|npmscopes|plugins|unsafehttpwhitelist|injectenvironmentfiles)$/i;

/** The person's own settings files that `npm|pnpm|yarn config set` may write (fail closed: all of them). */
const PACKAGE_MANAGER_SETTINGS: Record<string, string[]> = {
  npm: ['~/.npmrc'],
  pnpm: ['~/.npmrc', '~/.config/pnpm/rc'],
  yarn: ['~/.yarnrc', '~/.yarnrc.yml'],
};

/** The folder a package manager works in: `--prefix DIR`, `-C DIR` or `--dir DIR`, else the current one. */
function packageFolder(args: readonly Word[]): string {
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value ?? '';
    const attached = /^--(?:prefix|dir|cwd)=(.+)$/.exec(value)?.[1];
    if (attached !== undefined) return attached;
    if (/^(?:--prefix|--dir|--cwd|-C)$/.test(value)) return args[index + 1]?.value ?? '.';
  }
  return '.';
}

/** npm, pnpm and yarn: listing and looking up are fine; almost everything else runs package scripts. */
const packageManager: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  checkUrlArguments(st, inv, inv.args);
  const values = inv.args.map((arg) => arg.value);
  if (values.some((value) => value === undefined)) {
    report(
      st,
      inv,
      'critical',
      say(`runs ${inv.program} with arguments computed at run time`, `用运行时才确定的参数运行 ${inv.program}`),
    );
  }
  if (
    values.some(
      (value) =>
        value !== undefined &&
        /^--(?:script-shell|node-options|userconfig|globalconfig|onload-script)(?:=|$)/.test(value),
    )
  ) {
    report(
      st,
      inv,
      'critical',
      say(`points ${inv.program} at another program or settings file`, `让 ${inv.program} 改用另一个程序或设置文件`),
    );
  }
  const operands = operandsOf(inv.args);
  const verb = operands[0]?.value;
  if (verb === undefined) {
    report(
      st,
      inv,
      inv.program === 'yarn' ? 'high' : 'low',
      inv.program === 'yarn'
        ? 'installs packages, running their scripts'
        : say(`runs ${inv.program}`, `运行 ${inv.program}`),
    );
    return;
  }
  if (
    /^(?:ls|list|ll|la|view|v|info|show|outdated|search|s|se|find|help|prefix|root|bin|whoami|ping|doctor|explain|why|fund|query|licenses|dedupe-check|store-path|-v)$/.test(
      verb,
    )
  )
    return;
  if (verb === 'audit') {
    if (operands[1]?.value === 'fix') report(st, inv, 'high', 'changes installed packages');
    return;
  }
  if (verb === 'config' || verb === 'c') {
    const action = operands[1]?.value;
    if (action === undefined || /^(?:get|list|ls)$/.test(action)) return;
    for (const file of PACKAGE_MANAGER_SETTINGS[inv.program] ?? []) notesSettingsFile(st, inv, file);
    const key = operands[2]?.value?.split('=')[0];
    if (key === undefined || NPM_PROGRAM_KEYS.test(key)) {
      report(
        st,
        inv,
        'critical',
        say(
          `sets ${inv.program} configuration that names a program it runs or where packages come from`,
          `设置 ${inv.program} 的配置，指定它运行的程序或软件包的来源`,
        ),
      );
    } else {
      report(st, inv, 'medium', say(`changes ${inv.program} configuration`, `更改 ${inv.program} 的配置`));
    }
    return;
  }
  if (verb === 'token') {
    report(st, inv, 'critical', 'reads or changes registry access tokens');
    return;
  }
  if (/^(?:exec|x|dlx|create)$/.test(verb)) {
    report(st, inv, 'high', 'downloads and runs a package');
    const shell = inv.args.findIndex((arg) => arg.value === '-c' || arg.value === '--call');
    if (shell >= 0) runShellText(st, inv, inv.args[shell + 1]?.value, 'runs a shell command through npm exec');
    return;
  }
  if (/^(?:publish|unpublish|deprecate|dist-tag|owner|access|login|adduser|logout)$/.test(verb)) {
    report(st, inv, 'high', 'publishes packages or changes registry accounts');
    return;
  }
  report(
    st,
    inv,
    'high',
    say(
      `runs project scripts or installs packages (${inv.program} ${verb})`,
      `运行项目脚本或安装软件包（${inv.program} ${verb}）`,
    ),
  );
  // Its scripts are package.json's: one this command wrote is code nobody read.
  readsWrittenBuildFile(st, inv, [literalWord(path.posix.join(packageFolder(inv.args), 'package.json'))]);
};

/** npx and friends download and run a package; `-c` runs a shell command. */
const npx: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  checkUrlArguments(st, inv, inv.args);
  report(st, inv, 'high', 'downloads and runs a package');
  const shell = inv.args.findIndex((arg) => arg.value === '-c' || arg.value === '--call');
  if (shell >= 0) runShellText(st, inv, inv.args[shell + 1]?.value, 'runs a shell command through npx');
};

/** `uv run CMD`, `poetry run CMD`, `bundle exec CMD`: the command after the verb is what runs. */
function runner(verbs: string[], what: ShellPhrase, skipOptions = true): Handler {
  return (inv, st) => {
    if (isInfo(inv.args)) return;
    report(st, inv, 'high', what);
    const at = inv.args.findIndex((arg) => verbs.includes(arg.value ?? ''));
    checkUrlArguments(st, inv, at < 0 ? inv.args : inv.args.slice(0, at));
    if (at < 0) return;
    let rest = inv.args.slice(at + 1);
    if (rest[0]?.value === '--') rest = rest.slice(1);
    else if (skipOptions) {
      while (rest.length > 0 && (rest[0]?.value ?? '').startsWith('-')) rest = rest.slice(1);
    }
    runInner(st, inv, rest);
  };
}

/** pip settings that decide where packages come from and whom pip trusts. */
const PIP_SOURCE_KEYS =
  /(?:^|\.)(?:index-url|extra-index-url|find-links|trusted-host|proxy|cert|client-cert|keyring-provider|no-index)$/;

const pip: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  checkUrlArguments(st, inv, inv.args);
  const operands = operandsOf(inv.args);
  const verb = operands[0]?.value;
  if (verb !== undefined && /^(?:list|show|freeze|check|help|debug|inspect|search|index|cache)$/.test(verb)) return;
  if (verb === 'config') {
    const action = operands[1]?.value;
    if (action !== undefined && /^(?:list|get|debug)$/.test(action)) return;
    // `--user` (the default) writes ~/.config/pip/pip.conf; `--global` the machine's, `--site` the environment's.
    notesSettingsFile(st, inv, '~/.config/pip/pip.conf');
    const key = operands[2];
    if (action === 'edit' || key?.value === undefined || PIP_SOURCE_KEYS.test(key.value)) {
      report(st, inv, 'critical', 'changes where pip installs packages from, or what it trusts (pip config)');
    } else {
      report(st, inv, 'medium', 'changes pip settings');
    }
    return;
  }
  report(st, inv, 'high', 'installs or removes python packages, running their build code');
};

const go: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  checkUrlArguments(st, inv, inv.args);
  const values = inv.args.map((arg) => arg.value ?? '');
  if (values.some((value) => /^-(?:toolexec|exec)(?:=|$)/.test(value))) {
    report(st, inv, 'critical', 'makes go run another program (-toolexec/-exec)');
  }
  const verb = values[0];
  if (verb === 'env') {
    // `go env -w` and `-u` write the person's go settings file ($GOENV, ~/.config/go/env).
    if (values.includes('-w') || values.includes('-u')) notesSettingsFile(st, inv, '~/.config/go/env');
    if (
      values.includes('-w') &&
      values.some((value) => /^(?:GOFLAGS|CC|CXX|GOTOOLCHAIN|GOENV|GOROOT|GOPROXY|GONOSUMDB|GOINSECURE)=/.test(value))
    ) {
      report(st, inv, 'critical', 'changes go settings that decide which programs and modules it uses');
    } else if (values.includes('-w') || values.includes('-u')) {
      report(st, inv, 'medium', 'changes go settings');
    }
    return;
  }
  if (verb !== undefined && /^(?:version|list|doc|help)$/.test(verb)) return;
  report(
    st,
    inv,
    'high',
    say(
      `builds or runs project code (go ${verb ?? ''})`.replace(' ()', ''),
      `构建或运行项目代码（go${verb === undefined ? '' : ` ${verb}`}）`,
    ),
  );
};

const make: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  report(st, inv, 'high', "runs the project's build steps (make)");
  const makefiles: Word[] = [];
  let folder = '.';
  for (let index = 0; index < inv.args.length; index++) {
    const dir = /^(?:-C|--directory)$/.test(inv.args[index]?.value ?? '')
      ? inv.args[index + 1]?.value
      : /^--directory=(.+)$/.exec(inv.args[index]?.value ?? '')?.[1];
    if (dir !== undefined) folder = /^[/~]/.test(dir) ? dir : path.posix.join(folder, dir);
  }
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'runs make with arguments computed at run time');
      continue;
    }
    if (/^(?:--eval|-E)(?:=|$)/.test(value)) report(st, inv, 'critical', 'gives make extra code to run (--eval)');
    if (/^(?:SHELL|MAKESHELL|\.SHELLFLAGS|MAKEFLAGS)[:+]?=/.test(value)) {
      report(st, inv, 'critical', 'changes the shell make runs its commands with');
    }
    if (value === '-f' || value === '--file' || value === '--makefile' || /^--(?:file|makefile)=/.test(value)) {
      const file = value.includes('=')
        ? { ...(inv.args[index] as Word), value: value.slice(value.indexOf('=') + 1) }
        : inv.args[index + 1];
      if (file?.value === undefined || file.value === '-' || file.value.startsWith('/dev/')) {
        report(st, inv, 'critical', 'runs a makefile read from its input or computed at run time');
      } else {
        checkPath(st, inv, file, 'exec');
        makefiles.push(file);
      }
    }
  }
  // Without -f, make reads GNUmakefile, makefile or Makefile in the folder it changed to.
  if (makefiles.length === 0) {
    for (const name of ['GNUmakefile', 'makefile', 'Makefile'])
      makefiles.push(literalWord(path.posix.join(folder, name)));
  }
  readsWrittenBuildFile(st, inv, makefiles);
};

const cmake: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  const at = inv.args.findIndex((arg) => arg.value === '-E');
  if (at < 0) {
    report(st, inv, 'high', 'configures or builds the project (cmake)');
    return;
  }
  const [tool, ...rest] = inv.args.slice(at + 1);
  switch (tool?.value) {
    case 'rm':
    case 'remove':
    case 'remove_directory':
    case 'rmdir': {
      const recursive =
        tool.value === 'remove_directory' ||
        tool.value === 'rmdir' ||
        rest.some((arg) => /^-[rRf]*[rR]/.test(arg.value ?? ''));
      report(st, inv, recursive ? 'critical' : 'high', recursive ? 'deletes files recursively' : 'deletes files');
      for (const arg of rest)
        if (!(arg.value ?? '').startsWith('-')) checkPath(st, inv, arg, recursive ? 'writeTree' : 'delete');
      return;
    }
    case 'chdir':
      runInner(st, inv, rest.slice(1));
      return;
    case 'env': {
      const command = rest.filter((arg) => !/^(?:--unset=|--modify|[A-Za-z_]\w*=)/.test(arg.value ?? ''));
      runInner(st, inv, command);
      return;
    }
    case 'time':
      runInner(st, inv, rest);
      return;
    default:
      report(st, inv, 'medium', 'runs a cmake file tool');
  }
};

/**
 * Bind-mount sources that hand a container the host: the root, the home folder, system folders,
 * other users' homes, mounted drives, the daemon socket. Shared with the VM and container tools
 * of machines.ts.
 */
export function dangerousMountSource(st: AnalysisState, source: string | undefined): boolean {
  if (source === undefined) return true;
  if (!/^[/~.$]/.test(source)) return false; // a named volume
  if (/docker\.sock|containerd\.sock|podman\.sock/.test(source)) return true;
  for (const cwd of st.cwds ?? [st.startDir]) {
    const target = resolveShellPath(source, cwd, st.homeDir);
    if (target === undefined || isBroadDirectory(target, st.rules) || criticalTreeWrite(target, st.rules)) return true;
    if (/^\/(?:proc|sys|dev|etc|root|boot|var\/run|run)(?:\/|$)/.test(target)) return true;
  }
  return false;
}

const PRIVILEGED_FLAGS =
  /^--(?:privileged|pid=host|ipc=host|uts=host|userns=host|cgroupns=host|device\b.*|security-opt(?:=.*)?|cap-add(?:=.*)?)$/;

/** docker, podman and friends: running is high; handing the container the host is critical. */
const containers: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  const args = inv.args;
  const values = args.map((arg) => arg.value);
  const operands = operandsOf(args).map((arg) => arg.value);
  const verb =
    operands[0] === 'container' || operands[0] === 'compose'
      ? `${operands[0]} ${operands[1] ?? ''}`.trim()
      : operands[0];
  if (
    verb !== undefined &&
    /^(?:ps|images|image ls|logs|inspect|version|info|stats|top|port|history|search|diff|events|container ls|compose ps|compose logs|compose config)$/.test(
      verb,
    )
  )
    return;
  const command = `${inv.program}${verb ? ` ${verb}` : ''}`;
  report(st, inv, 'high', say(`runs containers (${command})`, `运行容器（${command}）`));
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (value === undefined) {
      report(
        st,
        inv,
        'critical',
        say(`runs ${inv.program} with options computed at run time`, `用运行时才确定的选项运行 ${inv.program}`),
      );
      continue;
    }
    const next = values[index + 1];
    if (
      PRIVILEGED_FLAGS.test(value) ||
      ((value === '--pid' || value === '--ipc' || value === '--uts' || value === '--userns') && next === 'host') ||
      value === '--device' ||
      value === '--cap-add' ||
      value === '--security-opt'
    ) {
      const detail = value === '--cap-add' || value === '--security-opt' ? `${value} ${next ?? ''}` : value;
      if (!/^--security-opt(?:=|\s)no-new-privileges(?::true)?$/.test(detail.trim())) {
        report(
          st,
          inv,
          'critical',
          say(`gives a container control of the host (${detail.trim()})`, `让容器控制宿主机（${detail.trim()}）`),
        );
      }
    }
    if (value === '-v' || value === '--volume' || value.startsWith('--volume=') || /^-v./.test(value)) {
      const spec = value === '-v' || value === '--volume' ? next : value.replace(/^(?:--volume=|-v=?)/, '');
      if (dangerousMountSource(st, spec?.split(':')[0]))
        report(st, inv, 'critical', 'gives a container the host file system or its control socket');
    }
    // `podman run --rootfs DIR`: the container's whole file system is that host folder.
    if (value === '--rootfs' || value.startsWith('--rootfs=')) {
      const rootfs = value === '--rootfs' ? next : value.slice('--rootfs='.length);
      if (dangerousMountSource(st, rootfs?.replace(/:O$/, '')))
        report(st, inv, 'critical', 'gives a container the host file system or its control socket');
    }
    if (value === '--mount' || value.startsWith('--mount=')) {
      const spec = value === '--mount' ? next : value.slice('--mount='.length);
      const source = /(?:^|,)(?:source|src)=([^,]+)/.exec(spec ?? '')?.[1];
      if (spec === undefined || (/type=bind/.test(spec) && dangerousMountSource(st, source))) {
        report(st, inv, 'critical', 'gives a container the host file system or its control socket');
      }
    }
  }
};

const kubectl: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  const values = inv.args.map((arg) => arg.value ?? '');
  const verb = operandsOf(inv.args)[0]?.value;
  if (verb === 'config' && values.includes('--raw')) {
    report(st, inv, 'critical', 'prints cluster credentials');
    return;
  }
  if (
    verb === 'delete' &&
    (values.some((value) => /^(?:--all|-A|--all-namespaces)$/.test(value)) ||
      operandsOf(inv.args).some((arg) => /^(?:namespaces?|ns)(?:\/|$)/.test(arg.value ?? '')))
  ) {
    report(st, inv, 'critical', 'deletes whole namespaces or every resource of a kind');
    return;
  }
  if (
    verb !== undefined &&
    /^(?:get|describe|logs|top|explain|api-resources|api-versions|cluster-info|config|auth|events|diff)$/.test(verb)
  ) {
    report(st, inv, 'medium', 'reads from a cluster');
    return;
  }
  const command = `${inv.program} ${verb ?? ''}`.trimEnd();
  report(
    st,
    inv,
    'high',
    say(`changes a cluster (${inv.program} ${verb ?? ''})`.replace(' )', ')'), `更改集群（${command}）`),
  );
};

const terraform: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  const values = inv.args.map((arg) => arg.value ?? '');
  const verb = operandsOf(inv.args)[0]?.value;
  if (
    verb === 'destroy' ||
    values.includes('-destroy') ||
    (verb === 'state' && values.includes('rm')) ||
    (verb === 'workspace' && values.includes('delete'))
  ) {
    report(st, inv, 'critical', 'destroys infrastructure or forgets it');
    return;
  }
  if (verb !== undefined && /^(?:fmt|validate|version|show|output|providers|graph|console|login|logout)$/.test(verb)) {
    if (verb === 'login' || verb === 'console') {
      report(st, inv, 'high', say(`runs ${inv.program} ${verb}`, `运行 ${inv.program} ${verb}`));
    }
    return;
  }
  const command = `${inv.program} ${verb ?? ''}`.trimEnd();
  report(
    st,
    inv,
    'high',
    say(
      `plans or changes infrastructure (${inv.program} ${verb ?? ''})`.replace(' )', ')'),
      `规划或更改基础设施（${command}）`,
    ),
  );
};

/** Cloud CLIs: printing tokens and secrets or deleting resources is critical; listing is medium. */
function cloud(secrets: RegExp): Handler {
  return (inv, st) => {
    if (isInfo(inv.args)) return;
    const words = operandsOf(inv.args).map((arg) => arg.value ?? '');
    const joined = words.join(' ');
    if (secrets.test(joined) || inv.args.some((arg) => /^--(?:with-decryption|show-token)$/.test(arg.value ?? ''))) {
      report(st, inv, 'critical', 'prints access tokens or secrets');
      return;
    }
    if (
      words.some((word) => /^(?:delete|delete-\S+|terminate-\S+|remove-\S+|rb|destroy)$/.test(word)) ||
      (words.includes('rm') && inv.args.some((arg) => arg.value === '--recursive'))
    ) {
      report(st, inv, 'critical', 'deletes cloud resources');
      return;
    }
    if (words.some((word) => /^(?:list|ls|describe|describe-\S+|list-\S+|get-\S+|show|get)$/.test(word))) {
      report(st, inv, 'medium', 'reads cloud resources');
      return;
    }
    report(st, inv, 'high', 'changes cloud resources');
  };
}

const gh: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  const words = operandsOf(inv.args).map((arg) => arg.value ?? '');
  const values = inv.args.map((arg) => arg.value ?? '');
  const [area, action] = words;
  if (
    (area === 'auth' && (action === 'token' || values.includes('-t') || values.includes('--show-token'))) ||
    (area === 'secret' && action === 'get')
  ) {
    report(st, inv, 'critical', 'prints GitHub access tokens');
    return;
  }
  if (area === 'repo' && action === 'delete') {
    report(st, inv, 'critical', 'deletes a GitHub repository');
    return;
  }
  if (area === 'alias' && values.includes('--shell')) {
    report(st, inv, 'critical', 'defines a gh alias that runs shell commands');
    return;
  }
  if (area === 'gist' || (area === 'release' && action === 'upload')) {
    for (const arg of operandsOf(inv.args).slice(2)) checkPath(st, inv, arg, 'read');
  }
  if (area === 'auth' || area === 'extension' || area === 'codespace' || area === 'secret' || area === 'api') {
    report(st, inv, 'high', say(`uses GitHub (${area})`, `使用 GitHub（${area}）`));
    return;
  }
  report(st, inv, 'medium', 'uses GitHub');
};

const brew: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  checkUrlArguments(st, inv, inv.args);
  const [verb, action] = operandsOf(inv.args).map((arg) => arg.value ?? '');
  if (verb === 'services' && action !== undefined && /^(?:start|stop|restart|run|kill|cleanup)$/.test(action)) {
    report(st, inv, 'critical', 'changes background services (brew services)');
    return;
  }
  if (
    verb === undefined ||
    /^(?:list|ls|info|search|doctor|config|outdated|deps|leaves|uses|desc|--prefix|--cellar|--repository|home|log|services)$/.test(
      verb,
    )
  )
    return;
  report(st, inv, 'high', say(`installs or changes packages (brew ${verb})`, `安装或更改软件包（brew ${verb}）`));
};

/** System package managers: searching is fine; installing runs package scripts as root. */
function systemPackages(looks: RegExp): Handler {
  return (inv, st) => {
    if (isInfo(inv.args)) return;
    checkUrlArguments(st, inv, inv.args);
    const first = inv.args[0]?.value;
    if (first !== undefined && looks.test(first)) return;
    report(st, inv, 'high', 'installs, removes or updates system packages');
  };
}

/** Opening a file or URL hands it to whatever program is registered for it. */
const opener: Handler = (inv, st) => {
  report(st, inv, 'high', 'opens a file or address with its default program');
  for (const arg of inv.args) {
    if (arg.value !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(arg.value)) checkUrl(st, inv, arg);
    else if (arg.value === undefined) report(st, inv, 'critical', 'opens something computed at run time');
  }
};

const compiler: Handler = (inv, st) => {
  if (isInfo(inv.args)) return;
  report(st, inv, 'medium', 'compiles code');
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) continue;
    if (/^-(?:wrapper|fplugin|B|specs)(?:=|$)/.test(value) || value === '-wrapper') {
      report(st, inv, 'critical', 'makes the compiler run or load another program');
    }
    if (value === '-o' && inv.args[index + 1]) checkPath(st, inv, inv.args[index + 1] as Word, 'write');
  }
};

const ansible: Handler = (inv, st) => {
  report(st, inv, 'high', 'runs automation on other machines');
  const values = inv.args.map((arg) => arg.value);
  const module = values[values.indexOf('-m') + 1];
  const argsAt = values.indexOf('-a');
  if (
    argsAt >= 0 &&
    values.includes('-m') &&
    /^(?:shell|command|raw|script|ansible\.builtin\.(?:shell|command|raw|script))$/.test(module ?? '')
  ) {
    runShellText(st, inv, inv.args[argsAt + 1]?.value, 'runs a command on the managed machines');
  }
};

const nixShell: Handler = (inv, st) => {
  report(st, inv, 'high', 'builds and enters a nix environment');
  const at = inv.args.findIndex((arg) => arg.value === '--run' || arg.value === '--command');
  if (at >= 0) runShellText(st, inv, inv.args[at + 1]?.value, 'runs a command in a nix environment');
};

const direnv: Handler = (inv, st) => {
  const verb = inv.args[0]?.value;
  if (verb === 'exec') {
    report(st, inv, 'high', 'runs a command with a folder’s environment');
    runInner(st, inv, inv.args.slice(2));
  } else if (verb === 'allow' || verb === 'permit' || verb === 'grant') {
    report(st, inv, 'high', 'lets a folder’s .envrc run automatically');
  }
};

const PROJECT_TOOLS: Record<string, Handler> = Object.fromEntries(
  [
    'pytest', 'tox', 'nox', 'jest', 'vitest', 'mocha', 'ava', 'karma', 'playwright', 'cypress', 'tsx', 'ts-node',
    'vite', 'webpack', 'esbuild', 'rollup', 'parcel', 'eslint', 'prettier', 'black', 'ruff', 'mypy', 'flake8',
    'pylint', 'isort', 'rubocop', 'golangci-lint', 'ninja', 'meson', 'bazel', 'bazelisk', 'buck', 'scons', 'gradle',
    'gradlew', 'mvn', 'mvnw', 'ant', 'sbt', 'lein', 'mix', 'rebar3', 'dotnet', 'swift', 'xcodebuild', 'flutter',
    'dart', 'gem', 'rake', 'rails', 'composer', 'rustup', 'cargo-watch', 'node-gyp', 'jupyter', 'pre-commit',
    'turbo', 'nx', 'lerna', 'vagrant', 'limactl', 'colima', 'ngrok', 'cloudflared', 'tailscale',
    'heroku', 'vercel', 'netlify', 'fly', 'flyctl', 'wrangler', 'railway', 'firebase', 'serverless', 'sls', 'cdk',
    'pulumi', 'helm', 'java', 'kotlin', 'scala', 'clojure', 'elixir', 'erl', 'ghc', 'cabal', 'stack', 'zig', 'nim',
    'crystal', 'pipx', 'conda', 'mamba', 'micromamba', 'pyenv', 'nvm', 'fnm', 'volta', 'asdf', 'mise', 'virtualenv',
    'corepack', 'storybook', 'next', 'nuxt', 'astro', 'remix', 'expo', 'react-native', 'ionic', 'ng', 'vue',
    'svelte-kit', 'electron', 'electron-builder', 'tauri', 'wasm-pack', 'trunk', 'protoc', 'buf', 'sqlc', 'prisma',
    'drizzle-kit', 'sequelize', 'knex', 'alembic', 'flask', 'django-admin', 'uvicorn', 'gunicorn', 'hypercorn',
    'streamlit', 'gatsby', 'hugo', 'jekyll', 'mkdocs', 'sphinx-build', 'doxygen', 'typedoc', 'jsdoc', 'nodemon',
    'pm2', 'forever', 'concurrently', 'biome', 'oxlint', 'stylelint', 'cspell', 'knip', 'depcheck', 'syncpack',
    'changeset', 'semantic-release', 'standard-version', 'commitlint', 'husky', 'lint-staged', 'gofmt', 'rustfmt',
    'clang-format', 'clang-tidy', 'cppcheck', 'valgrind-di', 'swiftlint', 'ktlint', 'detekt', 'phpunit', 'phpstan',
    'psalm', 'rspec', 'minitest', 'cucumber', 'behave', 'robot', 'locust', 'k6', 'artillery', 'newman',
  ].map((name) => [
    name,
    projectTool(say(`runs project code or tooling (${name})`, `运行项目代码或工具（${name}）`)),
  ]),
); // prettier-ignore

export const DEV_HANDLERS: Record<string, Handler> = {
  ...PROJECT_TOOLS,
  npm: packageManager,
  pnpm: packageManager,
  yarn: packageManager,
  npx,
  pnpx: npx,
  bunx: npx,
  pip,
  pip3: pip,
  uv: runner(['run'], 'manages python environments or runs project code'),
  uvx: npx,
  poetry: runner(['run'], 'manages python packages or runs project code'),
  pipenv: runner(['run'], 'manages python packages or runs project code'),
  pdm: runner(['run'], 'manages python packages or runs project code'),
  hatch: runner(['run'], 'manages python packages or runs project code'),
  rye: runner(['run'], 'manages python packages or runs project code'),
  bundle: runner(['exec'], 'installs gems or runs project code'),
  bundler: runner(['exec'], 'installs gems or runs project code'),
  cargo: projectTool(
    'builds, tests or runs Rust code',
    /^(?:tree|metadata|search|locate-project|pkgid|verify-project|read-manifest|version|help)$/,
  ),
  rustc: compiler,
  go,
  make,
  gmake: make,
  bmake: make,
  cmake,
  tsc: (inv, st) => {
    if (inv.args.some((arg) => arg.value === '--noEmit') || isInfo(inv.args)) return;
    report(st, inv, 'medium', 'compiles TypeScript, writing output files');
  },
  docker: containers,
  podman: containers,
  nerdctl: containers,
  ctr: containers,
  crictl: containers,
  'docker-compose': containers,
  kubectl,
  oc: kubectl,
  terraform,
  tofu: terraform,
  aws: cloud(
    /\b(?:configure (?:get|export-credentials)|get-session-token|get-secret-value|get-login-password|get-authorization-token|assume-role)\b/,
  ),
  gcloud: cloud(/\b(?:print-access-token|print-identity-token|secrets versions access|describe-key)\b/),
  az: cloud(/\b(?:get-access-token|secret show|keys list|list-keys|show-connection-string)\b/),
  gh,
  brew,
  apt: systemPackages(/^(?:list|search|show|policy|depends|rdepends|changelog|-v|--version|help)$/),
  'apt-get': systemPackages(/^(?:check|changelog|source|download|-v|--version|help)$/),
  'apt-cache': systemPackages(/./),
  aptitude: systemPackages(/^(?:search|show|versions|why|why-not)$/),
  dnf: systemPackages(/^(?:list|search|info|repolist|provides|repoquery|check-update|history)$/),
  yum: systemPackages(/^(?:list|search|info|repolist|provides|check-update|history)$/),
  zypper: systemPackages(/^(?:search|se|info|if|list-updates|lu|repos|lr|patches)$/),
  pacman: systemPackages(/^-(?:Q\w*|Ss\w*|Si\w*|Sl\w*|F\w*)$/),
  apk: systemPackages(/^(?:info|search|list|policy|dot|stats|version)$/),
  dpkg: systemPackages(/^-(?:l|L|s|S|p|-list|-listfiles|-status|-search|-print-architecture|-get-selections)$/),
  'dpkg-query': systemPackages(/./),
  rpm: systemPackages(/^-(?:q\w*|-query|V\w*|-verify)$/),
  snap: systemPackages(/^(?:list|find|info|version|services|changes|connections)$/),
  flatpak: systemPackages(/^(?:list|search|info|remotes|history)$/),
  port: systemPackages(/^(?:list|search|info|installed|outdated|deps|contents)$/),
  'nix-env': systemPackages(/^-(?:q\w*|-query)$/),
  nix: runner(['run', 'develop', 'shell'], 'builds or runs nix packages', false),
  'nix-shell': nixShell,
  open: opener,
  'xdg-open': opener,
  gio: opener,
  'gnome-open': opener,
  'kde-open': opener,
  start: opener,
  code: (inv, st) => {
    if (inv.args.some((arg) => /^--(?:install|uninstall)-extension$/.test(arg.value ?? ''))) {
      report(st, inv, 'high', 'installs editor extensions');
    } else if (!isInfo(inv.args)) {
      report(st, inv, 'medium', 'opens the editor');
    }
  },
  gcc: compiler,
  'g++': compiler,
  cc: compiler,
  'c++': compiler,
  clang: compiler,
  'clang++': compiler,
  javac: compiler,
  ansible,
  'ansible-playbook': projectTool('runs automation on other machines'),
  direnv,
  dotenv: runner(['--'], 'runs a command with variables from a file', false),
  shellcheck: (inv, st) => {
    for (const arg of operandsOf(inv.args)) checkPath(st, inv, arg, 'read');
  },
};
