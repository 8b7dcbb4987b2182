import { describe, expect, it } from 'vitest';

import { seccompArch, seccompBytes, seccompProgram } from './seccomp.js';

describe('the seccomp filter of commands', () => {
  it('checks the architecture first and refuses another ABI outright', () => {
    const program = seccompProgram('x64', { unixSockets: false });
    expect(program[0]).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 }); // load seccomp_data.arch
    expect(program[1]).toMatchObject({ code: 0x15, k: 0xc000003e }); // AUDIT_ARCH_X86_64, else …
    const deny = 1 + 1 + (program[1]?.jf ?? 0);
    expect(program[deny]).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x00050001 }); // … EPERM
    // x32 system calls (bit 30) are another ABI: refused too.
    expect(program[3]).toMatchObject({ code: 0x35, k: 0x40000000 });
    expect(seccompProgram('arm64', { unixSockets: false })[1]).toMatchObject({ k: 0xc00000b7 });
  });

  it('refuses Unix sockets only when the network namespace is shared; allows everything else', () => {
    const shared = seccompProgram('x64', { unixSockets: false });
    const own = seccompProgram('x64', { unixSockets: true });
    // What follows the load of the first argument (offset 16) is the address-family check.
    const socketCheck = (program: typeof shared) =>
      program.find((_instruction, index) => program[index - 1]?.code === 0x20 && program[index - 1]?.k === 16);
    expect(socketCheck(shared)).toMatchObject({ code: 0x15, k: 1 }); // AF_UNIX
    expect(socketCheck(own)?.k).toBe(0xffffffff); // matches no address family
    expect(shared.at(-1)).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x7fff0000 }); // SECCOMP_RET_ALLOW
    // TIOCSTI and TIOCLINUX are refused; classic BPF only jumps forward, which the builder checks.
    expect(shared.some((instruction) => instruction.k === 0x5412)).toBe(true);
    expect(shared.some((instruction) => instruction.k === 0x541c)).toBe(true);
  });

  it('is 8 bytes per instruction, little-endian, as bubblewrap reads it', () => {
    const bytes = seccompBytes('x64', { unixSockets: false });
    const program = seccompProgram('x64', { unixSockets: false });
    expect(bytes.length).toBe(program.length * 8);
    expect(bytes.readUInt16LE(8)).toBe(0x15);
    expect(bytes.readUInt32LE(12)).toBe(0xc000003e);
  });

  it('knows the architectures Node runs on here, and no others', () => {
    expect(seccompArch('x64')).toBe('x64');
    expect(seccompArch('arm64')).toBe('arm64');
    expect(seccompArch('riscv64')).toBeUndefined();
  });
});
