// Spec: "Tool catalogue > platform: skills" (gc_skill_author, gc_skill_disable, gc_skill_enable,
// gc_skill_get, gc_skill_list (scope available or enabled), gc_skill_scan (static analysis, returns a
// 0-10 style score)), "platform: other" (gc_publish_post), the resources "Community skill" and "Post",
// and the state table "Community skill and post". The moderation and feed routes are not in the spec
// (outsideSpec): the table's "moderator approves" and a skill's "published" need an operation.
import { t, type ContractContext, type ContractFile } from '../contract.js';

const SKILL_MD = '---\nname: release-notes\ndescription: Writes release notes.\n---\n\n# Release notes\n\nList commits since the last tag with `git log` and group them.\n';
const SKILL_ARGS = { name: 'release-notes', tagline: 'Release notes from commits', category: 'writing', body: SKILL_MD };
const NOT_SHOWN = 'The spec names no result fields for this tool beyond the state table; the checked names are docs/skills.md\'s.';

async function newSkill(c: ContractContext): Promise<string> {
  return (await c.tool('gc_skill_author', SKILL_ARGS)).skill_id;
}

export default {
  area: 'MCP tools: platform (skills, posts) and the community moderation routes',
  tools: [
    {
      tool: 'gc_skill_scan',
      spec: 'gc_skill_scan (static analysis, returns a 0-10 style score)',
      args: { body: SKILL_MD },
      fields: { score: t.number, findings: t.array },
      check: (data) => {
        if (data.score < 0 || data.score > 10) throw new Error(`score ${data.score} is outside 0-10`);
      },
    },
    {
      tool: 'gc_skill_author',
      spec: 'Community skill: name, tagline, category, SKILL.md body, install snippet; status draft when authored; visibility private or published | (none) -> gc_skill_author, live scan verdict is not CRITICAL -> draft, visibility private',
      args: { ...SKILL_ARGS, install_snippet: 'npx skills add acme/release-notes' },
      note: NOT_SHOWN,
      fields: { skill_id: t.uuid, name: t.string, tagline: t.string, category: t.string, status: t.const('draft'), visibility: t.const('private'), 'scan.verdict': t.string },
    },
    {
      tool: 'gc_skill_get',
      spec: 'gc_skill_get; Community skill: name, tagline, category, SKILL.md body, install snippet; persisted scan verdict',
      args: async (c) => ({ skill_id: await newSkill(c) }),
      note: NOT_SHOWN,
      fields: { skill_id: t.uuid, name: t.string, tagline: t.string, category: t.string, body: t.string, install_snippet: t.nullable(t.string), status: t.enum('draft', 'published'), visibility: t.enum('private', 'published'), 'scan.verdict': t.string },
    },
    {
      tool: 'gc_skill_list',
      spec: 'gc_skill_list (scope available or enabled)',
      args: async (c) => {
        await newSkill(c);
        return { scope: 'available' };
      },
      note: NOT_SHOWN,
      fields: { 'skills[].skill_id': t.uuid, 'skills[].name': t.string, 'skills[].visibility': t.enum('private', 'published') },
    },
    {
      tool: 'gc_skill_enable',
      spec: 'any -> gc_skill_enable: skill published, or private and owned by caller, and persisted scan verdict acceptable -> enabled for caller',
      args: async (c) => ({ skill_id: await newSkill(c) }),
      note: NOT_SHOWN,
      fields: { skill_id: t.uuid, enabled: t.const(true) },
    },
    {
      tool: 'gc_skill_disable',
      spec: 'enabled -> gc_skill_disable -> disabled; disabling a skill that is not enabled is a no-op',
      args: async (c) => {
        const skill_id = await newSkill(c);
        await c.tool('gc_skill_enable', { skill_id });
        return { skill_id };
      },
      note: NOT_SHOWN,
      fields: { skill_id: t.uuid, enabled: t.const(false), changed: t.const(true) },
    },
    {
      tool: 'gc_publish_post',
      spec: 'Post: Markdown body; returns id, slug, status | (none) -> gc_publish_post -> draft (always)',
      args: { body: '# Contract post\n\nA post written by the contract suite.' },
      fields: { id: t.uuid, slug: t.string, status: t.const('draft') },
    },
  ],
  routes: [
    {
      method: 'GET',
      path: '/v1/community/feed',
      spec: 'gc_publish_post -> draft (always); appears in the feed only after a moderator approves',
      outsideSpec: 'The feed the state table names; the spec gives no route for it (docs/skills.md).',
      request: async (c) => {
        const post = await c.tool('gc_publish_post', { body: '# In the feed\n\nApproved by the contract suite.' });
        await c.ok('POST', `/v1/community/posts/${post.id}/moderate`, { decision: 'approve' });
        return {};
      },
      status: 200,
      fields: { 'posts[].id': t.uuid, 'posts[].slug': t.string, 'posts[].status': t.const('approved') },
    },
    {
      method: 'GET',
      path: '/v1/community/moderation',
      spec: 'appears in the feed only after a moderator approves',
      outsideSpec: "The moderators' queue (draft posts and draft skills); administrators only (docs/skills.md).",
      status: 200,
      fields: { posts: t.array, skills: t.array },
    },
    {
      method: 'POST',
      path: '/v1/community/posts/:post_id/moderate',
      spec: 'appears in the feed only after a moderator approves',
      outsideSpec: "The moderator's approve or reject of a post; administrators only (docs/skills.md).",
      request: async (c) => ({ params: { post_id: (await c.tool('gc_publish_post', { body: 'To be moderated.' })).id }, body: { decision: 'approve' } }),
      status: 200,
      fields: { id: t.uuid, slug: t.string, status: t.const('approved') },
    },
    {
      method: 'POST',
      path: '/v1/community/skills/:skill_id/publish',
      spec: 'Community skill: visibility private or published',
      outsideSpec: 'How a skill becomes published is not shown in the spec: a moderator publishes it (administrators only; docs/skills.md).',
      request: async (c) => ({ params: { skill_id: await newSkill(c) } }),
      status: 200,
      fields: { skill_id: t.uuid, status: t.const('published'), visibility: t.const('published') },
    },
  ],
} satisfies ContractFile;
