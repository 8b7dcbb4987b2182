import { z } from 'zod';

import { actionResultSchema } from './common-schemas.js';
import { ALL_PLATFORMS, defineTool } from './define-tool.js';
import { touchesNothing } from './resources.js';

export const clipboardRead = defineTool({
  name: 'clipboard_read',
  title: 'Read the clipboard',
  titleZh: '读取剪贴板',
  description: 'Read what is on the system clipboard: text, or an image as base64 PNG.',
  category: 'system',
  risk: 'medium',
  effect: 'read',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ format: z.enum(['text', 'image', 'auto']).default('auto') }).strict(),
  output: z.object({
    content: z.string(),
    format: z.enum(['text', 'image']),
    formats: z.array(z.string()).describe('Every format the clipboard currently offers'),
  }),
  outputFrom: 'outside',
  resources: touchesNothing,
  imageField: (output) => (output.format === 'image' ? 'content' : undefined),
});

export const clipboardWrite = defineTool({
  name: 'clipboard_write',
  title: 'Write the clipboard',
  titleZh: '写入剪贴板',
  description: 'Put text, or an image given as base64 PNG, on the system clipboard.',
  category: 'system',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      content: z.string(),
      format: z.enum(['text', 'image']).default('text'),
    })
    .strict(),
  output: actionResultSchema,
  outputFrom: 'trusted',
  resources: (input) => ({ clipboard: input.format === 'image' ? {} : { text: input.content } }),
});

export const notificationSend = defineTool({
  name: 'notification_send',
  title: 'Send a notification',
  titleZh: '发送通知',
  description: 'Show a desktop notification to the person.',
  category: 'system',
  risk: 'low',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      title: z.string().min(1),
      body: z.string(),
      urgency: z.enum(['low', 'normal', 'critical']).default('normal'),
    })
    .strict(),
  output: actionResultSchema,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const SYSTEM_INFO_CATEGORIES = ['os', 'cpu', 'memory', 'disk', 'network'] as const;

const gigabytes = z.number().describe('GiB, two decimals');

export const systemInfo = defineTool({
  name: 'system_info',
  title: 'System information',
  titleZh: '系统信息',
  description:
    'Describe this computer: operating system, CPU, memory, disks, network and displays. `categories` limits the detailed sections; the summary fields are always present.',
  category: 'system',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      categories: z
        .array(z.enum(SYSTEM_INFO_CATEGORIES))
        .min(1)
        .optional()
        .describe('Detailed sections to include; all when omitted'),
    })
    .strict(),
  output: z.object({
    // Summary, always there.
    os: z.string().describe('Operating system name and version'),
    arch: z.string(),
    cpus: z.number().int(),
    memory_total: z.number().int().describe('Bytes'),
    memory_free: z.number().int().describe('Bytes available to start new programs'),
    displays: z.array(
      z.object({
        id: z.number().int(),
        name: z.string().optional(),
        width: z.number().int(),
        height: z.number().int(),
        x: z.number().int().optional(),
        y: z.number().int().optional(),
        scale: z.number(),
        primary: z.boolean().optional(),
      }),
    ),
    // Detailed sections, one per category asked for.
    system: z
      .object({
        os: z.string(),
        platform: z.enum(['linux', 'macos', 'windows']),
        version: z.string(),
        kernel: z.string(),
        hostname: z.string(),
        architecture: z.string(),
        uptime_seconds: z.number().int(),
      })
      .optional(),
    cpu: z
      .object({
        name: z.string(),
        cores: z.number().int(),
        usage_percent: z.number().min(0).max(100),
        load_average: z.array(z.number()).length(3).optional(),
      })
      .optional(),
    memory: z
      .object({
        total_gb: gigabytes,
        available_gb: gigabytes,
        usage_percent: z.number().min(0).max(100),
      })
      .optional(),
    disk: z
      .array(
        z.object({
          drive: z.string().describe('Mount point or drive letter'),
          filesystem: z.string().optional(),
          total_gb: gigabytes,
          free_gb: gigabytes,
          usage_percent: z.number().min(0).max(100),
        }),
      )
      .optional(),
    network: z
      .object({
        hostname: z.string(),
        ip_address: z.string().nullable().describe('Main non-loopback IPv4 address'),
        interfaces: z.array(
          z.object({
            name: z.string(),
            address: z.string(),
            family: z.enum(['IPv4', 'IPv6']),
            mac: z.string(),
          }),
        ),
      })
      .optional(),
    warnings: z.array(z.string()).optional().describe('Parts that could not be read, and why'),
  }),
  // Facts the operating system reports about itself (names chosen by the machine's owner).
  outputFrom: 'trusted',
  resources: touchesNothing,
});
