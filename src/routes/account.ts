// Account settings (not in the interface spec; docs/decisions.md "Account privacy settings").
import { z } from 'zod';
import { getPrivacySettings, updatePrivacySettings } from '../domain/identity/privacy.js';
import { defineRoute } from '../http/route.js';
import { auditRoute } from './governance.js';

const Settings = z.object({ store_input_previews: z.boolean() });

const UpdateAccountSettingsBody = z
  .object({
    /** Usage events keep an input preview (first line, 100 characters, credentials redacted). */
    store_input_previews: z.boolean().optional(),
  })
  .strict();

export const accountRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/account/settings',
    auth: 'key',
    response: Settings,
    doc: { summary: "The caller's account settings", responseExample: { store_input_previews: true } },
    async handler({ principal, services }) {
      return { body: await getPrivacySettings(services.db, principal.userId) };
    },
  }),
  auditRoute(
    defineRoute({
      method: 'PATCH',
      path: '/v1/account/settings',
      auth: 'key',
      body: UpdateAccountSettingsBody,
      response: Settings,
      doc: {
        summary: 'Change account settings (only present fields change)',
        description: 'store_input_previews false: usage events keep no input preview; true (the default): the first line, at most 100 characters, with credentials redacted.',
        requestExample: { store_input_previews: false },
        responseExample: { store_input_previews: false },
      },
      async handler({ body, principal, services }) {
        const settings = await updatePrivacySettings(services.db, principal, body);
        // This instance's cached callers carry the old value: the next call reads the new one.
        services.authCache.dropUser(principal.userId);
        return { body: settings };
      },
    }),
    'account.settings.update',
    (ctx) => ({ type: 'user', id: ctx.principal?.userId ?? null }),
    (ctx) => ({ fields: Object.keys(ctx.body ?? {}), store_input_previews: ctx.body?.store_input_previews }),
  ),
];
