import { z } from 'zod';

import { ALL_PLATFORMS, defineTool } from './define-tool.js';

const pathSchema = z
  .string()
  .min(1)
  .describe('Absolute path, or relative to the home directory; ~ is the home directory');

export const fileRead = defineTool({
  name: 'file_read',
  title: 'Read a file',
  titleZh: '读取文件',
  description:
    'Read a text file, optionally a range of lines (numbered from 1). Without `limit` at most 2000 lines come back; `truncated` says there is more, `total_lines` how many there are. Binary files are refused.',
  category: 'files',
  risk: 'medium',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      path: pathSchema,
      offset: z.number().int().min(1).optional().describe('First line to read'),
      limit: z.number().int().positive().optional().describe('Number of lines to read'),
    })
    .strict(),
  output: z.object({
    content: z.string(),
    total_lines: z.number().int(),
    truncated: z.boolean().optional(),
  }),
  outputFrom: 'outside',
  resources: (input) => ({ files: [{ path: input.path, access: 'read', verb: 'reads' }] }),
});

export const fileWrite = defineTool({
  name: 'file_write',
  title: 'Write a file',
  titleZh: '写入文件',
  description: 'Create a file or replace its whole content.',
  category: 'files',
  risk: 'high',
  effect: 'destructive',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ path: pathSchema, content: z.string() }).strict(),
  output: z.object({ success: z.boolean(), path: z.string(), bytes_written: z.number().int() }),
  outputFrom: 'trusted',
  resources: (input) => ({ files: [{ path: input.path, access: 'write', verb: 'writes', content: input.content }] }),
});

export const fileEdit = defineTool({
  name: 'file_edit',
  title: 'Edit a file',
  titleZh: '编辑文件',
  description:
    'Replace an exact string in a file with another. `old_string` must occur exactly once; include enough surrounding text to make it unique.',
  category: 'files',
  risk: 'high',
  effect: 'write',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      path: pathSchema,
      old_string: z.string().min(1),
      new_string: z.string(),
    })
    .strict(),
  output: z.object({ success: z.boolean(), path: z.string(), replacements: z.number().int() }),
  outputFrom: 'trusted',
  resources: (input) => ({ files: [{ path: input.path, access: 'write', verb: 'edits' }] }),
});

export const fileSearch = defineTool({
  name: 'file_search',
  title: 'Search files',
  titleZh: '搜索文件',
  description:
    'Find files by name (glob pattern) or by content (regular expression) under a directory. Dependency and version-control folders (node_modules, .git…) and binary files are skipped; symbolic links are not followed.',
  category: 'files',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      directory: pathSchema,
      pattern: z
        .string()
        .min(1)
        .describe(
          'For names: a glob; without a slash it matches a name at any depth ("*.ts"), with one the path relative to the directory ("src/**/*.ts"). For content: a JavaScript regular expression matched per line ("(?i)" at the start ignores case).',
        ),
      type: z.enum(['name', 'content']).default('name'),
      max_results: z.number().int().positive().max(1000).default(50),
    })
    .strict(),
  output: z.object({
    results: z.array(
      z.object({
        path: z.string(),
        line: z.number().int().optional(),
        text: z.string().optional(),
      }),
    ),
    truncated: z.boolean(),
    /** Why the list is incomplete (too many results, the search budget) and what was skipped. */
    message: z.string().optional(),
  }),
  outputFrom: 'outside',
  resources: (input) => ({ files: [{ path: input.directory, access: 'read', verb: 'searches' }] }),
});

const watchChangeSchema = z.enum(['create', 'modify', 'delete']);

export const fileWatch = defineTool({
  name: 'file_watch',
  title: 'Watch files',
  titleZh: '监视文件',
  description:
    'Watch a file or directory for created, modified and deleted files; each change arrives as a `file.changed` event until the watch is stopped. `action: "stop"` with a `watch_id` ends a watch, `action: "list"` shows the active ones.',
  category: 'files',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      action: z.enum(['start', 'stop', 'list']).default('start'),
      path: pathSchema.optional().describe('File or directory to watch; required to start a watch'),
      watch_id: z.string().min(1).optional().describe('The watch to stop; required to stop one'),
      events: z.array(watchChangeSchema).optional().describe('Changes to report; all of them when omitted'),
      recursive: z.boolean().default(true),
    })
    .strict()
    .superRefine((input, context) => {
      if (input.action === 'start' && input.path === undefined) {
        context.addIssue({ code: 'custom', path: ['path'], message: 'path is required to start a watch' });
      }
      if (input.action === 'stop' && input.watch_id === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['watch_id'],
          message: 'watch_id is required to stop a watch (file_watch with action "list" shows them)',
        });
      }
    }),
  output: z.object({
    /** The watch started or stopped. */
    watch_id: z.string().optional(),
    path: z.string().optional(),
    /** The watches active after the call. */
    watches: z
      .array(
        z.object({
          watch_id: z.string(),
          path: z.string(),
          events: z.array(watchChangeSchema),
          recursive: z.boolean(),
          started_at: z.string(),
        }),
      )
      .optional(),
    message: z.string().optional(),
  }),
  outputFrom: 'outside',
  resources: (input) => ({
    files: input.path === undefined ? [] : [{ path: input.path, access: 'read', verb: 'watches' }],
  }),
});

export const createDirectory = defineTool({
  name: 'create_directory',
  title: 'Create a folder',
  titleZh: '创建文件夹',
  description: 'Create a directory; with `parents`, also the missing directories above it.',
  category: 'files',
  risk: 'medium',
  effect: 'write',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ path: pathSchema, parents: z.boolean().default(false) }).strict(),
  output: z.object({ success: z.boolean(), path: z.string(), message: z.string() }),
  outputFrom: 'trusted',
  resources: (input) => ({ files: [{ path: input.path, access: 'write', verb: 'creates' }] }),
});

export const deleteFile = defineTool({
  name: 'delete_file',
  title: 'Delete a file',
  titleZh: '删除文件',
  description:
    'Move a file or directory to the trash, where the person can restore it. Only with `permanent: true` is it deleted for good.',
  category: 'files',
  risk: 'high',
  effect: 'destructive',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ path: pathSchema, permanent: z.boolean().default(false) }).strict(),
  output: z.object({
    success: z.boolean(),
    original_path: z.string(),
    deleted_to: z.string().describe('Path in the trash, or "deleted" when permanent'),
    message: z.string(),
  }),
  outputFrom: 'trusted',
  resources: (input) => ({
    // The tool removes a symlink itself, not what it points to: the link's own place is judged.
    files: [{ path: input.path, access: 'write', verb: 'deletes', followFinal: false, permanent: input.permanent }],
  }),
});
