import path from 'node:path';

import { say } from '@nextai/shared';

import {
  checkPath,
  checkUrl,
  joinedValue,
  noteDestroyed,
  remoteHost,
  report,
  runShellText,
  type Invocation,
} from '../invocation.js';
import { hasOption, optionValues, parseOptions, type OptionSpec, type ParsedArgs } from '../options.js';
import { resolveShellPath } from '../paths.js';
import type { AnalysisState } from '../state.js';
import { computedWord, literalWord, type Word } from '../words.js';
import type { Handler } from './types.js';

/** A file the command downloads to: running it later in the same command is running a download. */
function noteDownloadFile(st: AnalysisState, file: Word): void {
  if (file.value === undefined || file.value === '-') return;
  for (const cwd of st.cwds ?? []) {
    const target = resolveShellPath(file.value, cwd, st.homeDir);
    if (target) st.downloads.add(target);
  }
}

/** The file name a URL downloads to by default (`curl -O`, plain `wget`). */
function urlFileName(url: Word): Word {
  if (url.value === undefined) return computedWord(url.text);
  const withoutQuery = url.value.replace(/[?#].*$/, '');
  const name = withoutQuery
    .replace(/^[a-z]+:\/\/[^/]*/i, '')
    .split('/')
    .filter(Boolean)
    .pop();
  return literalWord(name ?? 'index.html');
}

/** `@file` (and for -F, `name=@file` / `name=<file`) sends a file's content. */
function dataFile(value: string, form: boolean): string | undefined {
  if (form) return /^[^=]*=[@<]([^;]+)/.exec(value)?.[1];
  if (value.startsWith('@')) return value === '@-' ? undefined : value.slice(1);
  const named = /^[^=@]*@(.+)$/.exec(value);
  // `name@-` is standard input, not a file.
  return named?.[1] === '-' ? undefined : named?.[1];
}

const CURL_SPEC: OptionSpec = {
  short: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  long: [
    'output', 'data', 'data-binary', 'data-raw', 'data-ascii', 'data-urlencode', 'json', 'form', 'form-string',
    'upload-file', 'config', 'header', 'proxy-header', 'user', 'cookie', 'cookie-jar', 'dump-header', 'trace',
    'trace-ascii', 'stderr', 'cert', 'key', 'cacert', 'capath', 'crlfile', 'pinnedpubkey', 'write-out', 'max-time',
    'connect-timeout', 'url', 'request', 'referer', 'user-agent', 'proxy', 'proxy-user', 'range', 'continue-at',
    'retry', 'retry-delay', 'retry-max-time', 'limit-rate', 'resolve', 'connect-to', 'interface', 'dns-servers',
    'unix-socket', 'abstract-unix-socket', 'netrc-file', 'output-dir', 'variable', 'url-query', 'aws-sigv4',
    'oauth2-bearer', 'create-file-mode', 'etag-save', 'etag-compare', 'hsts', 'alt-svc', 'libcurl', 'max-filesize',
    'max-redirs', 'speed-limit', 'speed-time', 'time-cond', 'telnet-option', 'quote', 'ftp-port', 'preproxy',
    'proxy-cacert', 'proxy-cert', 'proxy-key', 'socks4', 'socks4a', 'socks5', 'socks5-hostname', 'expect100-timeout',
    'happy-eyeballs-timeout-ms', 'keepalive-time', 'local-port', 'parallel-max', 'trace-config', 'ciphers', 'tls-max',
  ],
  abbreviations: false,
}; // prettier-ignore

/** curl: fetches URLs (each asked of the network guard), may upload files, and writes or prints what it gets. */
const curl: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, CURL_SPEC);
  report(st, inv, 'medium', 'transfers data over the network');
  const urls = [...parsed.operands, ...optionValues(parsed, '--url')];
  for (const url of urls) checkUrl(st, inv, url);
  if (hasOption(parsed, '-K', '--config'))
    report(st, inv, 'critical', 'reads curl options from a file the analyser cannot see');
  for (const option of parsed.options) {
    const value = option.value;
    if (!value) continue;
    const name = option.name;
    if (
      [
        '-d',
        '--data',
        '--data-binary',
        '--data-ascii',
        '--data-urlencode',
        '--json',
        '-H',
        '--header',
        '-w',
        '--write-out',
        '--variable',
        '--proxy-header',
      ].includes(name)
    ) {
      const file = value.value === undefined ? undefined : dataFile(value.value, false);
      if (file !== undefined) checkPath(st, inv, literalWord(file), 'read');
      // Data only known at run time may be a file's content: what it sends cannot be known.
      else if (value.value === undefined) st.effects.path({ role: 'read', excerpt: inv.excerpt });
    } else if (name === '-F' || name === '--form') {
      const file = value.value === undefined ? undefined : dataFile(value.value, true);
      if (file !== undefined) checkPath(st, inv, literalWord(file), 'read');
      else if (value.value === undefined) st.effects.path({ role: 'read', excerpt: inv.excerpt });
    } else if (['-T', '--upload-file', '--etag-compare'].includes(name)) {
      checkPath(st, inv, value, 'read');
    } else if (
      [
        '-c',
        '--cookie-jar',
        '-D',
        '--dump-header',
        '--trace',
        '--trace-ascii',
        '--stderr',
        '--etag-save',
        '--libcurl',
        '--hsts',
        '--alt-svc',
      ].includes(name)
    ) {
      if (value.value !== '-') checkPath(st, inv, value, 'write');
    } else if (name === '--unix-socket' || name === '--abstract-unix-socket') {
      if (value.value === undefined || /docker\.sock|containerd|podman/.test(value.value)) {
        report(st, inv, 'critical', 'talks to the container daemon, which can do anything as root');
      } else {
        report(st, inv, 'high', 'talks to a local service through its socket');
      }
    }
  }
  const outputDir = optionValues(parsed, '--output-dir').at(-1);
  const inDir = (file: Word): Word =>
    outputDir === undefined || file.value === undefined || file.value.startsWith('/')
      ? file
      : outputDir.value === undefined
        ? computedWord(file.text)
        : literalWord(path.posix.join(outputDir.value, file.value));
  const outputs = optionValues(parsed, '-o', '--output').filter((output) => output.value !== '-');
  const remoteNames = hasOption(parsed, '-O', '--remote-name', '--remote-name-all');
  for (const output of outputs) {
    const file = inDir(output);
    checkPath(st, inv, file, 'write');
    noteDownloadFile(st, file);
  }
  if (remoteNames) {
    for (const url of urls) {
      const file = inDir(urlFileName(url));
      checkPath(st, inv, file, 'write');
      noteDownloadFile(st, file);
    }
  }
  if (outputs.length === 0 && !remoteNames) inv.output.download = true;
};

const WGET_SPEC: OptionSpec = {
  short: 'OoaPieUtTwlQBYDIRAXh',
  long: [
    'output-document', 'output-file', 'append-output', 'directory-prefix', 'input-file', 'execute', 'user-agent',
    'tries', 'timeout', 'wait', 'level', 'quota', 'base', 'domains', 'include-directories', 'reject', 'accept',
    'exclude-directories', 'post-file', 'body-file', 'post-data', 'body-data', 'method', 'header', 'load-cookies',
    'save-cookies', 'ca-certificate', 'certificate', 'private-key', 'use-askpass', 'config', 'user', 'password',
    'http-user', 'http-password', 'referer', 'limit-rate', 'bind-address', 'dns-timeout', 'connect-timeout',
    'read-timeout', 'waitretry', 'random-wait', 'restrict-file-names', 'local-encoding', 'remote-encoding',
    'default-page', 'cut-dirs', 'ca-directory', 'secure-protocol', 'hsts-file', 'warc-file', 'rejected-log',
    'report-speed', 'progress', 'compression', 'retry-on-http-error', 'regex-type', 'accept-regex', 'reject-regex',
  ],
}; // prettier-ignore

/** wgetrc settings that are harmless with `-e` (robots=off is everyday use). */
const SAFE_WGETRC =
  /^\s*(?:robots|use_proxy|timeout|tries|wait|check_certificate|limit_rate|user_agent|verbose|quiet)\s*=/i;

const wget: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, WGET_SPEC);
  report(st, inv, 'medium', 'downloads files');
  for (const url of parsed.operands) checkUrl(st, inv, url);
  if (hasOption(parsed, '--use-askpass', '--config'))
    report(st, inv, 'critical', 'makes wget run a program or read options from a file');
  for (const command of optionValues(parsed, '-e', '--execute')) {
    if (command.value === undefined || !SAFE_WGETRC.test(command.value)) {
      report(st, inv, 'critical', 'gives wget settings that can write anywhere or run programs (-e)');
    }
  }
  if (hasOption(parsed, '-i', '--input-file'))
    report(st, inv, 'critical', 'downloads addresses listed in a file, which cannot be checked');
  for (const file of optionValues(parsed, '--post-file', '--body-file', '--load-cookies', '-i', '--input-file')) {
    checkPath(st, inv, file, 'read');
  }
  for (const file of optionValues(
    parsed,
    '-o',
    '--output-file',
    '-a',
    '--append-output',
    '--save-cookies',
    '--warc-file',
    '--rejected-log',
  )) {
    checkPath(st, inv, file, 'write');
  }
  const document = optionValues(parsed, '-O', '--output-document').at(-1);
  if (document?.value === '-') {
    inv.output.download = true;
    return;
  }
  const prefix = optionValues(parsed, '-P', '--directory-prefix').at(-1);
  const recursive = hasOption(parsed, '-r', '--recursive', '-m', '--mirror');
  if (recursive) {
    checkPath(st, inv, prefix ?? literalWord('.'), 'writeTree');
    return;
  }
  const files = document ? [document] : parsed.operands.map(urlFileName);
  for (const file of files) {
    const placed =
      prefix === undefined || document !== undefined || file.value === undefined
        ? file
        : prefix.value === undefined
          ? computedWord(file.text)
          : literalWord(path.posix.join(prefix.value, file.value));
    checkPath(st, inv, placed, 'write');
    noteDownloadFile(st, placed);
  }
};

/** ssh -o settings that run a local command. */
const SSH_COMMAND_SETTINGS =
  /^\s*(?:proxycommand|localcommand|permitlocalcommand|knownhostscommand|match|proxyusefdpass)\b/i;

function sshOptions(inv: Invocation, st: AnalysisState, parsed: ParsedArgs): void {
  for (const setting of optionValues(parsed, '-o')) {
    if (setting.value === undefined || SSH_COMMAND_SETTINGS.test(setting.value)) {
      report(st, inv, 'critical', 'makes ssh run a local command (-o ProxyCommand/LocalCommand)');
    }
    const remote = /^\s*remotecommand\s*[= ]\s*(.*)$/i.exec(setting.value ?? '');
    if (remote) runShellText(st, inv, remote[1], 'runs a command on the other machine');
  }
  if (hasOption(parsed, '-F')) report(st, inv, 'critical', 'reads ssh settings from a file, which can run commands');
}

const SSH_SPEC: OptionSpec = { short: 'bcDEeFIiJLlmOopQRSWwBP', flags: '46AaCfGgKkMNnqsTtVvXxYy', stopAtOperand: true };

const ssh: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, SSH_SPEC);
  if (hasOption(parsed, '-V') && parsed.operands.length === 0) return;
  report(st, inv, 'high', 'connects to another machine over ssh');
  sshOptions(inv, st, parsed);
  for (const log of optionValues(parsed, '-E')) checkPath(st, inv, log, 'write');
  for (const jump of optionValues(parsed, '-J')) checkUrl(st, inv, jump, 'ssh');
  const [destination, ...command] = parsed.operands;
  if (destination) checkUrl(st, inv, destination, 'ssh');
  // The command runs on the other machine, which may well be this one.
  if (command.length > 0) runShellText(st, inv, joinedValue(command), 'runs a command on the other machine');
};

/** scp and rsync: `host:path` operands are remote; local sources are read, a local target written. */
function copyEnds(inv: Invocation, st: AnalysisState, operands: Word[], recursive: boolean): boolean {
  let remote = false;
  operands.forEach((operand, index) => {
    const value = operand.value;
    const last = index === operands.length - 1 && operands.length > 1;
    if (value === undefined) {
      checkPath(st, inv, operand, last ? 'write' : 'read');
      return;
    }
    const host = /^rsync:\/\//i.test(value) ? value : remoteHost(value);
    if (host !== undefined) {
      remote = true;
      checkUrl(st, inv, literalWord(host.includes('://') ? host : `ssh://${host}`));
      return;
    }
    checkPath(st, inv, operand, last ? (recursive ? 'writeTree' : 'write') : recursive ? 'readTree' : 'read');
  });
  return remote;
}

const scp: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'cDFiJloPSX', flags: '346ABCpqrsTvOR' });
  report(st, inv, 'high', 'copies files to or from another machine');
  sshOptions(inv, st, parsed);
  if (hasOption(parsed, '-S')) report(st, inv, 'critical', 'makes scp run another program as its transport (-S)');
  copyEnds(inv, st, parsed.operands, hasOption(parsed, '-r'));
};

const sftp: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'BbcDFiJloPRSsX', flags: '46AaCfNpqrv' });
  sshOptions(inv, st, parsed);
  const [destination] = parsed.operands;
  if (destination) checkUrl(st, inv, literalWord(`ssh://${remoteHost(`${destination.value ?? ''}:`) ?? ''}`));
  const text = inv.stdin.kind === 'text' ? inv.stdin.text : undefined;
  if (hasOption(parsed, '-b', '-S', '-D') || text === undefined || text.includes('!')) {
    report(st, inv, 'critical', 'runs sftp commands the analyser cannot see; its "!" runs local shell commands');
  } else {
    report(st, inv, 'high', 'copies files to or from another machine');
  }
};

const RSYNC_LONG = [
  'rsh', 'rsync-path', 'remote-option', 'exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'filter',
  'log-file', 'log-file-format', 'password-file', 'backup-dir', 'suffix', 'temp-dir', 'compare-dest', 'copy-dest',
  'link-dest', 'chmod', 'chown', 'usermap', 'groupmap', 'timeout', 'contimeout', 'port', 'bwlimit', 'max-size',
  'min-size', 'max-delete', 'partial-dir', 'info', 'debug', 'out-format', 'sockopts', 'outbuf', 'iconv',
  'checksum-choice', 'compress-choice', 'compress-level', 'skip-compress', 'block-size', 'modify-window', 'address',
  'write-batch', 'only-write-batch', 'read-batch', 'protocol', 'checksum-seed', 'stop-after', 'stop-at', 'mkpath',
  'early-input', 'config',
]; // prettier-ignore

/** `-e ssh` or `-e 'ssh -p 2222'` is the everyday transport; any other program is critical. */
const PLAIN_SSH = /^ssh(?:\s+(?:-[46AaCfgKkMNnqsTtVvXxYy]+|-[pliJ]\s*[\w.@/~-]+))*\s*$/;

const rsync: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'eMfBT', long: RSYNC_LONG });
  for (const transport of optionValues(parsed, '-e', '--rsh')) {
    if (transport.value === undefined || !PLAIN_SSH.test(transport.value)) {
      report(st, inv, 'critical', 'makes rsync run another program as its transport (-e)');
    }
  }
  if (hasOption(parsed, '--rsync-path', '-M', '--remote-option', '--early-input', '--config')) {
    report(st, inv, 'critical', 'makes rsync run another program or read unchecked settings');
  }
  for (const file of optionValues(
    parsed,
    '--exclude-from',
    '--include-from',
    '--files-from',
    '--password-file',
    '--read-batch',
  )) {
    checkPath(st, inv, file, 'read');
  }
  for (const file of optionValues(parsed, '--log-file', '--write-batch', '--only-write-batch'))
    checkPath(st, inv, file, 'write');
  const recursive = hasOption(parsed, '-r', '--recursive', '-a', '--archive');
  const remote = copyEnds(inv, st, parsed.operands, recursive);
  const target = parsed.operands.at(-1);
  const deletes = inv.args.some((arg) => /^--(?:delete|del|delete-\w+|remove-source-files)$/.test(arg.value ?? ''));
  // With an empty or missing source, --delete empties the whole destination: as `rm -r`, whatever it names.
  if (deletes)
    report(st, inv, 'critical', 'deletes files the source does not have, or the sources themselves (rsync --delete)');
  if (
    deletes &&
    parsed.operands.length > 1 &&
    target &&
    (target.value === undefined || remoteHost(target.value) === undefined)
  ) {
    noteDestroyed(st, inv, target, 'tree', say('deletes what the source does not have in', '删除源中没有的内容，位于'));
  }
  report(st, inv, remote ? 'high' : 'medium', remote ? 'copies files to or from another machine' : 'copies files');
};

/** netcat and friends: -e/-c hands the connection a program — the classic reverse shell. */
const netcat: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'ecgGiIOpPqsTVwxXbmM',
    long: ['exec', 'sh-exec', 'lua-exec', 'proxy', 'proxy-type', 'source', 'source-port', 'wait', 'idle-timeout',
      'output', 'hex-dump', 'append-output', 'max-conns', 'allow', 'allowfile', 'deny', 'denyfile', 'proxy-auth'],
  }); // prettier-ignore
  if (hasOption(parsed, '-e', '-c', '--exec', '--sh-exec', '--lua-exec')) {
    report(st, inv, 'critical', 'hands a network connection to a program (a reverse or bind shell)');
  }
  report(
    st,
    inv,
    'high',
    hasOption(parsed, '-l', '--listen') ? 'listens for network connections' : 'opens a raw network connection',
  );
  for (const file of optionValues(parsed, '-o', '--output', '--append-output', '-x', '--hex-dump'))
    checkPath(st, inv, file, 'write');
  for (const operand of parsed.operands) {
    if (operand.value === undefined || !/^\d+(?:-\d+)?$/.test(operand.value)) checkUrl(st, inv, operand, 'tcp');
  }
};

const socat: Handler = (inv, st) => {
  report(st, inv, 'high', 'relays data between network connections, files or programs');
  for (const arg of inv.args) {
    const value = arg.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'relays to an address computed at run time');
      continue;
    }
    if (value.startsWith('-') && value !== '-') continue;
    const lower = value.toLowerCase();
    if (/^(?:exec|system)[:,]?/.test(lower) || /^(?:exec|system)$/.test(lower)) {
      report(st, inv, 'critical', 'hands a connection to a program (socat exec/system)');
    } else if (/^(?:open|create|gopen|file|pipe|unix-listen|unix-connect)[:,]/.test(lower)) {
      checkPath(st, inv, literalWord(value.slice(value.indexOf(':') + 1).split(',')[0] ?? ''), 'write');
    } else if (/^(?:tcp|tcp4|tcp6|udp|udp4|udp6|openssl|ssl|sctp|socks4a?|proxy)[:-]/.test(lower)) {
      const host = value.slice(value.indexOf(':') + 1).split(/[:,]/)[0] ?? '';
      if (host) checkUrl(st, inv, literalWord(host), 'tcp');
    }
  }
};

const openssl: Handler = (inv, st) => {
  const [sub, ...rest] = inv.args;
  const name = sub?.value ?? '';
  if (['version', 'help', 'list'].includes(name)) return;
  const network = ['s_client', 's_server', 's_time', 'ocsp'].includes(name);
  report(st, inv, network ? 'high' : 'medium', network ? 'opens a TLS connection' : 'runs an openssl tool');
  rest.forEach((arg, index) => {
    const value = arg.value;
    const next = rest[index + 1];
    if (!next) return;
    if (['-out', '-keyout', '-sess_out'].includes(value ?? '')) checkPath(st, inv, next, 'write');
    if (['-in', '-inkey', '-key', '-sess_in', '-kfile'].includes(value ?? '')) checkPath(st, inv, next, 'read');
    if (value === '-connect' && next.value !== undefined)
      checkUrl(st, inv, literalWord(next.value.replace(/:\d+$/, '')), 'tcp');
    if (value === '-engine' || value === '-provider-path')
      report(st, inv, 'critical', 'makes openssl load code from a file');
  });
};

const httpie: Handler = (inv, st) => {
  report(st, inv, 'medium', 'transfers data over the network');
  const parsed = parseOptions(inv.args, {
    short: 'oaAv',
    long: [
      'output',
      'auth',
      'auth-type',
      'session',
      'session-read-only',
      'verify',
      'cert',
      'cert-key',
      'proxy',
      'timeout',
    ],
  });
  for (const output of optionValues(parsed, '-o', '--output')) checkPath(st, inv, output, 'write');
  const operands = parsed.operands;
  const urlAt = /^[A-Z]+$/.test(operands[0]?.value ?? '') ? 1 : 0;
  const url = operands[urlAt];
  if (url) checkUrl(st, inv, url);
  for (const item of operands.slice(urlAt + 1)) {
    const file = /^[^=:@]+(?:=|:=)?@(.+)$/.exec(item.value ?? '')?.[1];
    if (file) checkPath(st, inv, literalWord(file), 'read');
  }
};

const aria2c: Handler = (inv, st) => {
  report(st, inv, 'medium', 'downloads files');
  if (inv.args.some((arg) => arg.value === undefined || /^--on-(?:download|bt-download)-\w+/.test(arg.value))) {
    report(st, inv, 'critical', 'makes the downloader run a program when it finishes');
  }
  for (const arg of inv.args) {
    if (arg.value !== undefined && /^[a-z]+:\/\//i.test(arg.value)) checkUrl(st, inv, arg);
  }
};

/** Probes such as ping and dig only look a host up; the guard still hears about the host. */
const probe: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'cifIlpstTwWqQmMbBFgSx' });
  for (const operand of parsed.operands) {
    if (operand.value === undefined) report(st, inv, 'critical', 'contacts an address computed at run time');
    else if (/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(operand.value)) checkUrl(st, inv, operand);
  }
};

const nmap: Handler = (inv, st) => {
  report(st, inv, 'high', 'scans the network');
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value ?? '';
    const next = inv.args[index + 1];
    if (value === '--interactive')
      report(st, inv, 'critical', "opens nmap's interactive mode, which runs shell commands");
    if (value === '-iL' && next) checkPath(st, inv, next, 'read');
    if (/^-o[NXGSA]$/.test(value) && next) checkPath(st, inv, next, 'write');
  }
};

const ftp: Handler = (inv, st) => {
  report(st, inv, 'critical', 'runs an FTP client, whose command reader can run shell commands (!)');
};

const mail: Handler = (inv, st) => {
  report(st, inv, 'high', 'sends email');
  if (inv.stdin.kind === 'terminal' || inv.args.some((arg) => arg.value === '-~' || arg.value === undefined)) {
    report(st, inv, 'critical', 'reads a message whose ~! escapes can run shell commands');
  }
};

const sshKeygen: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'aCfFGIjJKmMnNOrRsStTuVwYzZbD', flags: 'AcBeghHiklLpqQUvXyE' });
  if (hasOption(parsed, '-l', '-y', '-L', '-B', '-F', '-e')) {
    for (const file of optionValues(parsed, '-f')) checkPath(st, inv, file, 'list');
    return;
  }
  report(st, inv, 'medium', 'creates or changes ssh keys');
  for (const file of optionValues(parsed, '-f')) checkPath(st, inv, file, 'write');
  if (hasOption(parsed, '-R')) report(st, inv, 'critical', 'changes ~/.ssh/known_hosts');
};

export const NETWORK_HANDLERS: Record<string, Handler> = {
  curl,
  wget,
  wget2: wget,
  ssh,
  scp,
  sftp,
  rsync,
  nc: netcat,
  ncat: netcat,
  netcat,
  'nc.traditional': netcat,
  'nc.openbsd': netcat,
  socat,
  telnet: (inv, st) => {
    report(st, inv, 'high', 'opens a raw network connection');
    const host = inv.args.find((arg) => !(arg.value ?? '').startsWith('-'));
    if (host) checkUrl(st, inv, host, 'tcp');
  },
  openssl,
  http: httpie,
  https: httpie,
  xh: httpie,
  xhs: httpie,
  aria2c,
  axel: aria2c,
  ping: probe,
  ping6: probe,
  traceroute: probe,
  tracepath: probe,
  mtr: probe,
  dig: probe,
  host: probe,
  nslookup: probe,
  whois: probe,
  nmap,
  ftp,
  lftp: ftp,
  tftp: ftp,
  ncftp: ftp,
  mail,
  mailx: mail,
  'mail.mailutils': mail,
  'ssh-keygen': sshKeygen,
  'ssh-add': (inv, st) => {
    const listing = inv.args.every((arg) => /^-[lLE]$|^(?:md5|sha256)$/.test(arg.value ?? ''));
    if (!listing || inv.args.length === 0) report(st, inv, 'high', 'gives the ssh agent a key');
  },
  'ssh-copy-id': (inv, st) => {
    report(st, inv, 'high', 'installs an ssh key on another machine');
    const host = inv.args.filter((arg) => !(arg.value ?? '').startsWith('-')).at(-1);
    if (host?.value !== undefined) checkUrl(st, inv, literalWord(`ssh://${host.value.replace(/^[^@]*@/, '')}`));
  },
  'ssh-agent': (inv, st) => {
    report(st, inv, 'high', 'starts an ssh agent');
    if (inv.args.some((arg) => !(arg.value ?? '-').startsWith('-'))) {
      report(st, inv, 'critical', 'starts a program under an ssh agent, which the analyser does not follow');
    }
  },
};
