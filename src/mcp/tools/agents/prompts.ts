import { z } from 'zod';
import { VARIABLE_TYPES } from '../../../../workers/shared/promptVariables.js';
import { compareVersions, DEFAULT_COMPARE_MODELS, rewriteVersion, type VersionRef } from '../../../domain/prompts/compare.js';
import {
  createTemplate, deployVersion, getTemplate, getVersion, labelHistory, labelsOf, LABELS, listTemplates, MAX_TEMPLATE_CHARS, renderVersion,
  templateResponse, updateTemplate, versionList, versionResponse,
} from '../../../domain/prompts/templates.js';
import { invalidInput } from '../../../domain/errors.js';
import { scopeOf } from '../../../domain/memory/memories.js';
import { defineTool } from '../../tool.js';
import { experimentTools } from './experiments.js';
import { int } from '../outputs.js';

/** templateResponse plus versionResponse, as create, get and update answer. */
const templateOut = z.looseObject({
  template_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  latest_version: int,
  labels: z.record(z.string(), int),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
const withVersion = templateOut.extend({
  version: int,
  version_id: z.string(),
  body: z.string(),
  variables: z.array(z.looseObject({ name: z.string(), type: z.string(), required: z.boolean() })),
  note: z.string().nullable(),
});
const labelMove = z.looseObject({ label: z.enum(LABELS), from_version: int.nullable(), to_version: int, moved_at: z.string() });

const SCOPE_NOTE = "Scoped to the caller and the key's project (an unbound key uses the user's own scope).";
const templateId = z.string().uuid().describe('template_id returned by create_prompt_template or list_prompt_templates');
const version = z.number().int().min(1).max(1_000_000);
const label = z.enum(LABELS);
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name is a letter or _ then letters, digits or _');
const variableSpecs = z
  .array(
    z
      .object({
        name: variableName,
        type: z.enum(VARIABLE_TYPES).default('string'),
        required: z.boolean().default(true),
        description: z.string().max(500).optional(),
      })
      .strict(),
  )
  .max(100)
  .describe('Typed variables (type string, number, integer, boolean, array, object, scalar or any). Omitted: inferred from the template, all required.');
const body = z.string().min(1).max(MAX_TEMPLATE_CHARS).describe('Mustache template text, e.g. "Summarise {{document}} in {{words}} words." (logic-less: no partials, no code)');
const values = z.record(z.string(), z.unknown()).describe('Variable values by name (JSON)');

function decodeOffset(cursor: string | undefined): number {
  if (!cursor) return 0;
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,8}$/.test(raw)) throw invalidInput('invalid cursor', [{ loc: ['cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
  return Number(raw);
}

const ref = (a: { version?: number; label?: (typeof LABELS)[number] }): VersionRef => ({ version: a.version, label: a.label });

const templateTools = [
  defineTool({
    name: 'create_prompt_template',
    output: withVersion.extend({ template_tokens: int }),
    scope: 'mcp:write',
    advisory: true,
    description: `Creates a prompt template (Mustache, logic-less) as version 1. Variables are declared with types or inferred from the template; invalid syntax, partials, undeclared or unused declared variables are errors. Names are unique per scope. ${SCOPE_NOTE}`,
    input: z
      .object({ name: z.string().trim().min(1).max(200), description: z.string().max(2000).optional(), template: body, variables: variableSpecs.optional() })
      .strict(),
    async handler(args, ctx) {
      const r = await createTemplate(ctx.call, scopeOf(ctx.principal), { name: args.name, description: args.description, body: args.template, variables: args.variables });
      return { result: { ...templateResponse(r.template, {}), ...versionResponse(r.version), template_tokens: r.tokens } };
    },
  }),
  defineTool({
    name: 'get_prompt_template',
    output: withVersion.extend({ versions: z.array(z.looseObject({ version: int, note: z.string().nullable(), created_at: z.string() })), label_history: z.array(labelMove) }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `A prompt template with one version (the latest, a version number, or the version a label points at), its labels, its version list and the label audit (who moved which label from which version to which, when). ${SCOPE_NOTE}`,
    input: z.object({ template_id: templateId, version: version.optional(), label: label.optional() }).strict(),
    async handler(args, ctx) {
      const db = ctx.services.db;
      const t = await getTemplate(db, scopeOf(ctx.principal), args.template_id);
      const v = await getVersion(db, t, ref(args));
      return {
        result: {
          ...templateResponse(t, await labelsOf(db, t.id)),
          ...versionResponse(v),
          versions: await versionList(db, t.id),
          label_history: await labelHistory(db, t.id),
        },
      };
    },
  }),
  defineTool({
    name: 'list_prompt_templates',
    output: z.looseObject({ templates: z.array(templateOut), total: int, next_cursor: z.string().nullable() }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Lists prompt templates, most recently changed first: limit 1-100 (default 20), opaque cursor, optional name_contains filter. Each entry has its latest version and its labels. ${SCOPE_NOTE}`,
    input: z
      .object({ limit: z.number().int().min(1).max(100).default(20), cursor: z.string().max(100).optional(), name_contains: z.string().trim().min(1).max(200).optional() })
      .strict(),
    async handler(args, ctx) {
      const offset = decodeOffset(args.cursor);
      const { total, templates } = await listTemplates(ctx.services.db, scopeOf(ctx.principal), { limit: args.limit, offset, nameContains: args.name_contains });
      const next = offset + templates.length < total ? Buffer.from(String(offset + templates.length)).toString('base64url') : null;
      return { result: { templates, total, next_cursor: next } };
    },
  }),
  defineTool({
    name: 'update_prompt_template',
    output: withVersion.extend({ template_tokens: int }),
    scope: 'mcp:write',
    advisory: true,
    description: `Saves a new version of a prompt template (versions are immutable; labels do not move). A new template text without variables re-infers them; variables alone re-declare the latest text's. ${SCOPE_NOTE}`,
    input: z
      .object({ template_id: templateId, template: body.optional(), variables: variableSpecs.optional(), description: z.string().max(2000).optional(), note: z.string().max(500).optional() })
      .strict()
      .refine((a) => a.template !== undefined || a.variables !== undefined || a.description !== undefined, { message: 'give template, variables or description', path: ['template'] }),
    async handler(args, ctx) {
      const r = await updateTemplate(ctx.call, scopeOf(ctx.principal), args.template_id, { body: args.template, variables: args.variables, description: args.description, note: args.note });
      return { result: { ...templateResponse(r.template, await labelsOf(ctx.services.db, r.template.id)), ...versionResponse(r.version), template_tokens: r.tokens } };
    },
  }),
  defineTool({
    name: 'render_prompt_template',
    output: z.looseObject({ template_id: z.string(), version: int, label: z.enum(LABELS).nullable(), rendered: z.string(), tokens: int, tokenizer: z.string() }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Renders a template version (latest, a number, or a label's) with typed variable values. Missing required, unknown, or mistyped variables are one error naming each. Values are inserted as text (no HTML escaping, no code). ${SCOPE_NOTE}`,
    input: z.object({ template_id: templateId, version: version.optional(), label: label.optional(), variables: values.default({}), model: z.string().max(100).optional().describe('Tokenizer for the token count') }).strict(),
    async handler(args, ctx) {
      const db = ctx.services.db;
      const t = await getTemplate(db, scopeOf(ctx.principal), args.template_id);
      const v = await getVersion(db, t, ref(args));
      const r = await renderVersion(ctx.call, v, args.variables, args.model);
      return { result: { template_id: t.id, version: v.number, label: args.label ?? null, rendered: r.text, tokens: r.tokens, tokenizer: r.tokenizer } };
    },
  }),
  defineTool({
    name: 'deploy_prompt_version',
    output: labelMove.extend({ template_id: z.string(), labels: z.record(z.string(), int) }),
    scope: 'mcp:write',
    advisory: true,
    description: `Points a label (production, staging or canary) at a version. The move is atomic (the template is locked while it happens) and audited: who, when, from which version, to which. ${SCOPE_NOTE}`,
    input: z.object({ template_id: templateId, label, version }).strict(),
    async handler(args, ctx) {
      const move = await deployVersion(ctx.services.db, ctx.principal, scopeOf(ctx.principal), args.template_id, args.label, args.version);
      return { result: { template_id: args.template_id, ...move, labels: await labelsOf(ctx.services.db, args.template_id) } };
    },
  }),
  defineTool({
    name: 'compare_prompt_versions',
    output: z.looseObject({
      template_id: z.string(),
      from_version: int,
      to_version: int,
      compared: z.enum(['rendered', 'template']),
      diff: z.string(),
      identical: z.boolean(),
      models: z.array(z.looseObject({ model: z.string(), from_tokens: int, to_tokens: int, token_delta: int, cost_delta_usd: z.number().nullable() })),
    }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Compares two versions of a template: unified line diff, token counts per model (counted in the pool with the model's tokenizer; Anthropic models are estimated with o200k) and input cost per call from the dated price table. With variables, the rendered prompts are compared. Versions by number or label (default: the previous version against the latest). ${SCOPE_NOTE}`,
    input: z
      .object({
        template_id: templateId,
        from_version: version.optional(),
        from_label: label.optional(),
        to_version: version.optional(),
        to_label: label.optional(),
        models: z.array(z.string().trim().min(1).max(100)).min(1).max(10).default(DEFAULT_COMPARE_MODELS),
        variables: values.optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      let from: VersionRef = { version: args.from_version, label: args.from_label };
      const to: VersionRef = { version: args.to_version, label: args.to_label };
      if (from.version === undefined && from.label === undefined) {
        const t = await getTemplate(ctx.services.db, s, args.template_id);
        from = { version: Math.max(1, t.latest_version - 1) };
      }
      return { result: await compareVersions(ctx.call, s, args.template_id, { from, to, models: args.models, variables: args.variables }) };
    },
  }),
  defineTool({
    name: 'generate_rewrite_prompt',
    output: z.looseObject({
      template_id: z.string(),
      version: int,
      rewritten_prompt: z.string(),
      original_tokens: int,
      rewritten_tokens: int,
      tokens_saved: int,
      savings_percent: z.number(),
      fidelity: z.string().nullable(),
      variables_kept: z.boolean(),
      saved_version: int.nullable(),
    }),
    scope: 'mcp:write',
    advisory: false,
    description: `A shorter equivalent of a template version from the text compression engine, with the tokens saved. Every {{variable}} and section tag is kept: a compression that loses one is retried at a gentler fidelity, and when none keeps them all the original is returned with tokens_saved 0. save: true stores the result as a new version. ${SCOPE_NOTE}`,
    input: z
      .object({
        template_id: templateId,
        version: version.optional(),
        label: label.optional(),
        fidelity: z.enum(['abstract', 'outline', 'balanced', 'detailed']).default('detailed'),
        model: z.string().max(100).optional(),
        save: z.boolean().default(false),
      })
      .strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const r = await rewriteVersion(ctx.call, s, args.template_id, { ref: ref(args), fidelity: args.fidelity, model: args.model });
      let saved: number | null = null;
      if (args.save && r.tokens_saved > 0) {
        const u = await updateTemplate(ctx.call, s, args.template_id, { body: r.rewritten_prompt, note: `generate_rewrite_prompt of v${r.version} (${r.fidelity})` });
        saved = u.version.number;
      }
      return { result: { ...r, saved_version: saved } };
    },
  }),
];

/** Issue 21: prompt templates, datasets and experiments. */
export const promptTools = [...templateTools, ...experimentTools];
