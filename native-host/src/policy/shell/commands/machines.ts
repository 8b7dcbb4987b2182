import { say } from '@nextai/shared';

import { checkPath, report, runInner, type Invocation } from '../invocation.js';
import { isDiskDevice, resolveShellPath } from '../paths.js';
import type { AnalysisState } from '../state.js';
import { literalWord, type Word } from '../words.js';
import { dangerousMountSource } from './dev.js';
import type { Handler } from './types.js';

/**
 * Container and virtual-machine managers beyond docker and podman (dev.ts): LXD/Incus,
 * systemd-nspawn and machinectl's machines, QEMU, libvirt and its tools, distrobox and toolbox,
 * multipass. Their daemons run as root, so talking to them is as good as root; what matters most
 * is what of the host they hand a guest: its disks, its root or home folders.
 */

function verbOf(args: readonly Word[], valued: RegExp = /^$/): Word | undefined {
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined || !value.startsWith('-')) return args[index];
    if (valued.test(value)) index += 1;
  }
  return undefined;
}

/** `key=value` pieces of an option value (`file=/dev/sda,format=raw`, `source=/ path=/host`). */
function settings(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const piece of text.split(/[,\s]+/)) {
    const at = piece.indexOf('=');
    if (at > 0) map.set(piece.slice(0, at).toLowerCase(), piece.slice(at + 1));
  }
  return map;
}

/** A host path handed to a guest: a disk device, or a folder that gives it the host (dev.ts). */
function handsOverHost(st: AnalysisState, inv: Invocation, source: string | undefined, what: 'disk' | 'folder'): void {
  if (source === undefined) {
    report(st, inv, 'critical', 'gives a virtual machine or container a host path computed at run time');
    return;
  }
  const device = isDiskDevice(source) || /^\/dev\//.test(source);
  if (device) {
    report(st, inv, 'critical', "gives a virtual machine or container one of the host's disks or devices");
    // A guest writes to its disks: the device is changed, which the sandbox also has to see.
    checkPath(st, inv, literalWord(source), 'write');
    return;
  }
  if (what === 'folder' && dangerousMountSource(st, source)) {
    report(st, inv, 'critical', 'gives a container the host file system or its control socket');
    return;
  }
  // An image file the guest writes to: an ordinary path, checked as one.
  checkPath(st, inv, literalWord(source), 'write');
}

const READ_ONLY_LXC =
  /^(?:list|ls|info|version|help|query|monitor|image|remote|storage|network|profile|project|cluster|warning|operation|alias)$/;

/** lxc and incus: looking is harmless; a disk device from the host or a privileged container is the host. */
const lxc: Handler = (inv, st) => {
  const values = inv.args.map((arg) => arg.value);
  if (values.some((value) => value === undefined)) {
    report(st, inv, 'critical', 'runs a container manager with arguments computed at run time');
    return;
  }
  const words = values as string[];
  const verb = words.find((value) => !value.startsWith('-'));
  const sub = words[words.indexOf(verb ?? '') + 1];
  if (verb !== undefined && READ_ONLY_LXC.test(verb) && (sub === undefined || /^(?:list|ls|show|info|get)$/.test(sub)))
    return;
  if (verb === 'config' && /^(?:show|get)$/.test(sub ?? '')) return;
  report(
    st,
    inv,
    'critical',
    say(
      `runs containers through ${inv.program}, whose daemon acts as root (${inv.program} ${verb ?? ''})`,
      `通过 ${inv.program} 运行容器，它的守护进程以 root 身份行事（${inv.program} ${verb ?? ''}）`,
    ),
  );
  for (const word of words) {
    const source = /^source=(.*)$/.exec(word)?.[1];
    if (source !== undefined) handsOverHost(st, inv, source, 'folder');
  }
};

/** systemd-nspawn boots or enters a folder as a container, as root: the host's root folder is the host. */
const nspawn: Handler = (inv, st) => {
  report(st, inv, 'critical', 'runs a container over a host folder as root (systemd-nspawn)');
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) continue;
    const inline = /^--(?:directory|bind|bind-ro|image|overlay|overlay-ro)=(.*)$/.exec(value)?.[1];
    const next = /^(?:-D|-i|--directory|--bind|--bind-ro|--image)$/.test(value)
      ? inv.args[index + 1]?.value
      : undefined;
    const source = (inline ?? next)?.split(':')[0];
    if (inline !== undefined || next !== undefined) handsOverHost(st, inv, source, 'folder');
  }
};

const QEMU_DISK_OPTIONS = /^-(?:hd[a-d]|cdrom|fda|fdb|mtdblock|sd|pflash|kernel|initrd)$/;
const QEMU_SETTING_OPTIONS = /^-(?:drive|blockdev|virtfs|fsdev|device|chardev|netdev|object)$/;

/** qemu-system-*: a VM; given the host's disks or its folders (-virtfs, -fsdev), it has the host. */
const qemu: Handler = (inv, st) => {
  report(st, inv, 'high', 'runs a virtual machine (qemu)');
  const args = inv.args;
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'runs a virtual machine with options computed at run time');
      continue;
    }
    const next = args[index + 1];
    if (QEMU_DISK_OPTIONS.test(value)) {
      handsOverHost(st, inv, next?.value, 'disk');
      index += 1;
    } else if (QEMU_SETTING_OPTIONS.test(value)) {
      const spec = next?.value;
      if (spec === undefined) {
        report(st, inv, 'critical', 'runs a virtual machine with options computed at run time');
      } else {
        const set = settings(spec);
        const file = set.get('file') ?? set.get('filename');
        if (file !== undefined) handsOverHost(st, inv, file, 'disk');
        const folder = set.get('path');
        if (folder !== undefined) handsOverHost(st, inv, folder, 'folder');
      }
      index += 1;
    } else if (!value.startsWith('-') && (isDiskDevice(value) || value.startsWith('/dev/'))) {
      handsOverHost(st, inv, value, 'disk');
    }
  }
};

/** qemu-img and qemu-nbd read and write disk images, and disks. */
const qemuImage: Handler = (inv, st) => {
  report(st, inv, inv.program === 'qemu-nbd' ? 'critical' : 'medium', 'reads or writes disk images (qemu)');
  for (const arg of inv.args) {
    if (arg.value !== undefined && (isDiskDevice(arg.value) || arg.value.startsWith('/dev/'))) {
      handsOverHost(st, inv, arg.value, 'disk');
    }
  }
};

const READ_ONLY_VIRSH =
  /^(?:list|dominfo|domstate|domid|domname|domuuid|dumpxml|domblklist|domiflist|domblkinfo|dommemstat|domstats|net-list|net-info|net-dumpxml|pool-list|pool-info|vol-list|vol-info|capabilities|version|nodeinfo|hostname|uri|sysinfo|help)$/;

/** virsh: libvirt's shell; looking is harmless, everything else changes machines run as root. */
const virsh: Handler = (inv, st) => {
  const verb = verbOf(inv.args, /^(?:-c|--connect|-d|--debug|-l|--log|-e|--escape|-k|--keepalive-interval|-K)$/);
  if (verb?.value !== undefined && READ_ONLY_VIRSH.test(verb.value)) return;
  report(
    st,
    inv,
    'critical',
    say(
      `changes virtual machines through libvirt, which acts as root (virsh ${verb?.text ?? ''})`,
      `通过 libvirt 更改虚拟机，它以 root 身份行事（virsh ${verb?.text ?? ''}）`,
    ),
  );
  for (const arg of inv.args) {
    if (arg.value !== undefined && arg.value.startsWith('/dev/')) handsOverHost(st, inv, arg.value, 'disk');
  }
};

/** virt-install and the libguestfs tools open or create disks; a host disk among them is the host. */
const virtTool: Handler = (inv, st) => {
  report(st, inv, inv.program === 'virt-install' ? 'critical' : 'high', 'creates or opens virtual machine disks');
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) continue;
    const spec = /^(?:--disk|-a|--add|--filesystem)$/.test(value) ? inv.args[index + 1]?.value : undefined;
    if (spec !== undefined) {
      const set = settings(spec);
      const source = set.get('path') ?? set.get('source') ?? (spec.includes('=') ? undefined : spec.split(',')[0]);
      if (source !== undefined) handsOverHost(st, inv, source, value === '--filesystem' ? 'folder' : 'disk');
    }
  }
};

/** distrobox and toolbox: containers that share the home folder, devices and the host's processes. */
const sharedContainer: Handler = (inv, st) => {
  const verb = verbOf(inv.args)?.value;
  if (verb !== undefined && /^(?:list|ls|version|help|--version|--help)$/.test(verb)) return;
  report(
    st,
    inv,
    'critical',
    say(
      `runs a container that shares your home folder and devices (${inv.program} ${verb ?? ''})`,
      `运行与你共享主文件夹和设备的容器（${inv.program} ${verb ?? ''}）`,
    ),
  );
  const command = inv.args.findIndex((arg) => arg.value === '--');
  if (command >= 0) runInner(st, inv, inv.args.slice(command + 1));
};

/** multipass: VMs of its own; `mount` hands one a host folder. */
const multipass: Handler = (inv, st) => {
  const verb = verbOf(inv.args)?.value;
  if (verb !== undefined && /^(?:list|ls|info|version|help|networks|find|get|aliases)$/.test(verb)) return;
  report(
    st,
    inv,
    'high',
    say(`runs virtual machines (multipass ${verb ?? ''})`, `运行虚拟机（multipass ${verb ?? ''}）`),
  );
  if (verb === 'mount') {
    const source = inv.args.find((arg) => arg.value !== 'mount' && !(arg.value ?? '-').startsWith('-'));
    const value = source?.value;
    handsOverHost(
      st,
      inv,
      value === undefined ? undefined : resolveShellPath(value, st.startDir, st.homeDir),
      'folder',
    );
  }
};

export const MACHINE_HANDLERS: Record<string, Handler> = {
  lxc,
  incus: lxc,
  'systemd-nspawn': nspawn,
  'qemu-system': qemu,
  'qemu-kvm': qemu,
  kvm: qemu,
  'qemu-img': qemuImage,
  'qemu-nbd': qemuImage,
  virsh,
  'virt-install': virtTool,
  'virt-clone': virtTool,
  'virt-customize': virtTool,
  'virt-sysprep': virtTool,
  'virt-rescue': virtTool,
  'virt-copy-in': virtTool,
  'virt-copy-out': virtTool,
  guestmount: virtTool,
  guestfish: virtTool,
  distrobox: sharedContainer,
  toolbox: sharedContainer,
  multipass,
};
