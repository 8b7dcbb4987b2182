/**
 * A seccomp filter for commands in the sandbox, as the classic BPF program bubblewrap loads
 * (`--seccomp FD`). It closes what namespaces leave open:
 *
 *   - Unix sockets (`socket(AF_UNIX, …)`), when the network is on: then a command shares the network
 *     namespace, and with it the *abstract* Unix sockets no file-system view can hide: the X
 *     server's (`@/tmp/.X11-unix/X0`, through which a program can type into any window) and often
 *     the session bus's. Socket pairs (`socketpair`, which programs use between their own
 *     processes) stay allowed.
 *   - Typing into the terminal (`ioctl(TIOCSTI)`, `ioctl(TIOCLINUX)`).
 *   - The kernel keyrings (`add_key`, `request_key`, `keyctl`), shared by all of a user's processes.
 *   - io_uring (`io_uring_setup/enter/register`), which can create and connect sockets itself.
 *   - System calls of another ABI (32-bit programs on x86-64, x32), which the numbers below do not
 *     describe: refused as a whole rather than judged wrongly.
 *
 * Graphical apps do not get it: they talk to the X server and the session bus by design.
 */

export type SeccompArch = 'x64' | 'arm64';

interface ArchNumbers {
  audit: number;
  socket: number;
  ioctl: number;
  addKey: number;
  requestKey: number;
  keyctl: number;
  /** io_uring_setup, io_uring_enter, io_uring_register: a second way to make sockets, past the filter. */
  ioUring: [number, number, number];
  /** System calls numbered from here are of another ABI on the same architecture (x32). */
  foreignFrom?: number;
}

const ARCHES: Record<SeccompArch, ArchNumbers> = {
  // AUDIT_ARCH_X86_64; linux/arch/x86/entry/syscalls/syscall_64.tbl
  x64: {
    audit: 0xc000003e,
    socket: 41,
    ioctl: 16,
    addKey: 248,
    requestKey: 249,
    keyctl: 250,
    ioUring: [425, 426, 427],
    foreignFrom: 0x40000000,
  },
  // AUDIT_ARCH_AARCH64; include/uapi/asm-generic/unistd.h
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    ioctl: 29,
    addKey: 217,
    requestKey: 218,
    keyctl: 219,
    ioUring: [425, 426, 427],
  },
};

const AF_UNIX = 1;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const EPERM = 1;
const EACCES = 13;

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (little-endian).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
const OFFSET_ARG1_LOW = 24;

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const load = (offset: number): Instruction => ({ code: LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (value: number): Instruction => ({ code: RET_K, jt: 0, jf: 0, k: value });

/**
 * The filter's instructions, for the architecture Node runs on. `unixSockets: false` when the
 * command shares the network namespace (abstract sockets); without the network its namespace is
 * its own, and Unix sockets between its own processes are harmless.
 */
export function seccompProgram(arch: SeccompArch, options: { unixSockets: boolean }): Instruction[] {
  const numbers = ARCHES[arch];
  // Jumps are relative to the next instruction; the labels are resolved below.
  type Pending = Instruction & { to?: { jt?: string; jf?: string }; label?: string };
  const program: Pending[] = [
    load(OFFSET_ARCH),
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.audit, to: { jf: 'deny' } },
    load(OFFSET_NR),
    ...(numbers.foreignFrom !== undefined
      ? [{ code: JGE_K, jt: 0, jf: 0, k: numbers.foreignFrom, to: { jt: 'deny' } }]
      : []),
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.socket, to: { jt: 'socket' } },
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.ioctl, to: { jt: 'ioctl' } },
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.addKey, to: { jt: 'keys' } },
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.requestKey, to: { jt: 'keys' } },
    { code: JEQ_K, jt: 0, jf: 0, k: numbers.keyctl, to: { jt: 'keys' } },
    // io_uring can open and connect sockets without socket(2): none of it inside.
    ...numbers.ioUring.map((number, index) => ({
      code: JEQ_K,
      jt: 0,
      jf: 0,
      k: number,
      to: index === numbers.ioUring.length - 1 ? { jt: 'deny', jf: 'allow' } : { jt: 'deny' },
    })),
    { ...load(OFFSET_ARG0_LOW), label: 'socket' },
    { code: JEQ_K, jt: 0, jf: 0, k: options.unixSockets ? 0xffffffff : AF_UNIX, to: { jt: 'refuse', jf: 'allow' } },
    { ...load(OFFSET_ARG1_LOW), label: 'ioctl' },
    { code: JEQ_K, jt: 0, jf: 0, k: TIOCSTI, to: { jt: 'typing' } },
    { code: JEQ_K, jt: 0, jf: 0, k: TIOCLINUX, to: { jt: 'typing', jf: 'allow' } },
    { ...ret(retErrno(EPERM)), label: 'typing' },
    { ...ret(retErrno(EACCES)), label: 'refuse' },
    { ...ret(retErrno(EPERM)), label: 'keys' },
    { ...ret(retErrno(EPERM)), label: 'deny' },
    // Last, so that every jump to it goes forward (classic BPF jumps only forward).
    { ...ret(RET_ALLOW), label: 'allow' },
  ];
  const at = new Map<string, number>();
  program.forEach((instruction, index) => {
    if (instruction.label) at.set(instruction.label, index);
  });
  return program.map((instruction, index) => {
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= index) throw new Error(`seccomp: bad jump to ${label}`);
      const distance = target - index - 1;
      if (distance > 255) throw new Error('seccomp: jump too far');
      return distance;
    };
    return {
      code: instruction.code,
      jt: offset(instruction.to?.jt),
      jf: offset(instruction.to?.jf),
      k: instruction.k >>> 0,
    };
  });
}

/** The program as bubblewrap reads it: `struct sock_filter` entries, 8 bytes each, little-endian. */
export function seccompBytes(arch: SeccompArch, options: { unixSockets: boolean }): Buffer {
  const program = seccompProgram(arch, options);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jt, index * 8 + 2);
    bytes.writeUInt8(instruction.jf, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k, index * 8 + 4);
  });
  return bytes;
}

/** The architecture of this process, when the filter knows it. */
export function seccompArch(arch: string = process.arch): SeccompArch | undefined {
  return arch === 'x64' || arch === 'arm64' ? arch : undefined;
}
