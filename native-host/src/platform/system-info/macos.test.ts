// The fixtures follow outputs recorded on real Macs and published in other projects' tests (some
// values changed or combined); the adapter itself has not been run on a real Mac.
import { describe, expect, it } from 'vitest';

import {
  DISPLAYS_COMMAND,
  SW_VERS_COMMAND,
  VM_STAT_COMMAND,
  describeMacOs,
  parseSwVers,
  parseSystemProfilerDisplays,
  parseVmStat,
} from './macos.js';

describe('sw_vers', () => {
  it('describes current macOS', () => {
    const output = 'ProductName:\t\tmacOS\nProductVersion:\t\t14.5\nBuildVersion:\t\t23F79\n';
    expect(describeMacOs(parseSwVers(output), '23.5.0')).toEqual({ name: 'macOS 14.5', version: '14.5 (23F79)' });
  });

  it('keeps the Rapid Security Response suffix and old product names', () => {
    const rsr =
      'ProductName:\t\tmacOS\nProductVersion:\t\t13.4.1\nProductVersionExtra:\t(c)\nBuildVersion:\t\t22F770820d\n';
    expect(describeMacOs(parseSwVers(rsr), '22.5.0')).toEqual({
      name: 'macOS 13.4.1 (c)',
      version: '13.4.1 (c) (22F770820d)',
    });
    const catalina = 'ProductName:\tMac OS X\nProductVersion:\t10.15.7\nBuildVersion:\t19H2026\n';
    expect(describeMacOs(parseSwVers(catalina), '19.6.0').name).toBe('Mac OS X 10.15.7');
  });

  it('falls back to the Darwin release when sw_vers says nothing', () => {
    expect(describeMacOs({}, '23.5.0')).toEqual({ name: 'macOS (Darwin 23.5.0)', version: '23.5.0' });
  });
});

describe('vm_stat', () => {
  it('counts free, speculative and inactive pages as available', () => {
    const output = `Mach Virtual Memory Statistics: (page size of 16384 bytes)
Pages free:                                5105.
Pages active:                            401235.
Pages inactive:                          393012.
Pages speculative:                         4551.
Pages throttled:                              0.
Pages wired down:                        141235.
Pages purgeable:                          12004.
"Translation faults":                 824159124.
Pages copy-on-write:                   31234567.
Pages zero filled:                    412345678.
Pages reactivated:                      9876543.
Pages purged:                           2345678.
File-backed pages:                       301234.
Anonymous pages:                         498013.
Pages stored in compressor:              612345.
Pages occupied by compressor:            201234.
Decompressions:                         8765432.
Compressions:                          12345678.
Pageins:                               23456789.
Pageouts:                                 12345.
Swapins:                                 123456.
Swapouts:                                234567.
`;
    expect(parseVmStat(output)).toBe((5105 + 393012 + 4551) * 16384);
  });

  it('gives up on output without page counts', () => {
    expect(parseVmStat('Mach Virtual Memory Statistics: (page size of 4096 bytes)\n')).toBeUndefined();
    expect(parseVmStat('')).toBeUndefined();
  });
});

// A MacBook Pro (M1 Pro) with a 4K screen in a scaled HiDPI mode as the main display.
const MACBOOK_WITH_EXTERNAL = `{
  "SPDisplaysDataType" : [
    {
      "_name" : "Apple M1 Pro",
      "spdisplays_mtlgpufamilysupport" : "spdisplays_metal3",
      "spdisplays_ndrvs" : [
        {
          "_name" : "LG HDR 4K",
          "_spdisplays_display-product-id" : "772a",
          "_spdisplays_display-serial-number" : "1a2b3c",
          "_spdisplays_display-vendor-id" : "1e6d",
          "_spdisplays_display-week" : "12",
          "_spdisplays_display-year" : "2021",
          "_spdisplays_displayID" : "2",
          "_spdisplays_pixels" : "5120 x 2880",
          "_spdisplays_resolution" : "2560 x 1440 @ 60.00Hz",
          "spdisplays_main" : "spdisplays_yes",
          "spdisplays_mirror" : "spdisplays_off",
          "spdisplays_online" : "spdisplays_yes",
          "spdisplays_pixelresolution" : "spdisplays_2160p",
          "spdisplays_resolution" : "2560 x 1440 @ 60.00Hz",
          "spdisplays_rotation" : "spdisplays_supported"
        },
        {
          "_name" : "Color LCD",
          "_spdisplays_display-product-id" : "a050",
          "_spdisplays_display-serial-number" : "fd626d62",
          "_spdisplays_display-vendor-id" : "610",
          "_spdisplays_display-week" : "0",
          "_spdisplays_display-year" : "0",
          "_spdisplays_displayID" : "1",
          "_spdisplays_pixels" : "3456 x 2234",
          "_spdisplays_resolution" : "1728 x 1117 @ 120.00Hz",
          "spdisplays_ambient_brightness" : "spdisplays_yes",
          "spdisplays_connection_type" : "spdisplays_internal",
          "spdisplays_display_type" : "spdisplays_built-in-liquid-retina-xdr",
          "spdisplays_mirror" : "spdisplays_off",
          "spdisplays_online" : "spdisplays_yes",
          "spdisplays_pixelresolution" : "spdisplays_3456x2234Retina"
        }
      ],
      "spdisplays_vendor" : "sppci_vendor_Apple",
      "sppci_bus" : "spdisplays_builtin",
      "sppci_cores" : "16",
      "sppci_device_type" : "spdisplays_gpu",
      "sppci_model" : "Apple M1 Pro"
    }
  ]
}`;

// An Intel MacBook Pro running its Retina panel in a 1x mode, and a Retina panel whose backing
// size is missing (older macOS versions leave _spdisplays_pixels out).
const INTEL_MACBOOK = `{
  "SPDisplaysDataType" : [
    {
      "_name" : "Intel Iris Plus Graphics 655",
      "spdisplays_ndrvs" : [
        {
          "_name" : "Color LCD",
          "_spdisplays_displayID" : "4280a80",
          "_spdisplays_pixels" : "1280 x 800",
          "_spdisplays_resolution" : "1280 x 800 @ 60.00Hz",
          "spdisplays_display_type" : "spdisplays_built-in_retinaLCD",
          "spdisplays_main" : "spdisplays_yes",
          "spdisplays_mirror" : "spdisplays_off",
          "spdisplays_online" : "spdisplays_yes",
          "spdisplays_pixelresolution" : "spdisplays_2560x1600Retina"
        },
        {
          "_name" : "Color LCD 2",
          "spdisplays_resolution" : "1440 × 900 @ 60Hz",
          "spdisplays_pixelresolution" : "spdisplays_2880x1800Retina"
        }
      ],
      "sppci_model" : "Intel Iris Plus Graphics 655"
    },
    {
      "_name" : "Radeon Pro 555X",
      "sppci_model" : "Radeon Pro 555X"
    }
  ]
}`;

describe('system_profiler SPDisplaysDataType', () => {
  it('reports logical sizes, the backing scale and the main display', () => {
    expect(parseSystemProfilerDisplays(MACBOOK_WITH_EXTERNAL)).toEqual([
      { id: 0, name: 'LG HDR 4K', width: 2560, height: 1440, scale: 2, primary: true },
      { id: 1, name: 'Color LCD', width: 1728, height: 1117, scale: 2, primary: false },
    ]);
  });

  it('uses 1 for a 1x mode and 2 for a Retina panel without a backing size', () => {
    expect(parseSystemProfilerDisplays(INTEL_MACBOOK)).toEqual([
      { id: 0, name: 'Color LCD', width: 1280, height: 800, scale: 1, primary: true },
      { id: 1, name: 'Color LCD 2', width: 1440, height: 900, scale: 2, primary: false },
    ]);
  });

  it('returns nothing for a Mac without a screen and rejects output that is not JSON', () => {
    expect(
      parseSystemProfilerDisplays('{"SPDisplaysDataType":[{"_name":"Apple M2","sppci_model":"Apple M2"}]}'),
    ).toEqual([]);
    expect(() => parseSystemProfilerDisplays('Graphics/Displays:')).toThrow(SyntaxError);
  });
});

describe('commands', () => {
  it('asks sw_vers, vm_stat and system_profiler in JSON', () => {
    expect(SW_VERS_COMMAND).toEqual({ command: 'sw_vers', args: [] });
    expect(VM_STAT_COMMAND).toEqual({ command: 'vm_stat', args: [] });
    expect(DISPLAYS_COMMAND).toEqual({ command: 'system_profiler', args: ['SPDisplaysDataType', '-json'] });
  });
});
