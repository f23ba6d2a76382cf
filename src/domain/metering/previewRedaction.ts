// Usage previews stored before previews were redacted (issue 45) are redacted once, in batches, in
// the background after a start; the pass is recorded in maintenance_done and not run again. Those
// previews were cut to 100 characters before anything looked at them, so a credential at the end may
// be cut short of its full shape: a cut one that starts like a credential is redacted too.
import type { Logger } from '../../lib/log.js';
import { redactSecrets } from '../../lib/redactSecrets.js';
import type { Queryable } from '../../store/db.js';

const PASS = 'redact_usage_previews_v1';
const BATCH = 500;

/** A credential prefix left at the end of a preview cut at 100 characters (no full shape to match). */
const CUT_AT_END = /(?:gc_|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abposr]-|[rs]k_(?:live|test)_|whsec_|sk-|AIza|eyJ)[A-Za-z0-9_\-./+=]*$/;

/** A stored preview with its credentials redacted, a cut one at its end included. */
export function redactStoredPreview(preview: string): string {
  const out = redactSecrets(preview);
  return Array.from(out).length >= 100 ? out.replace(CUT_AT_END, '[redacted:cut]') : out;
}

export interface PreviewRedaction {
  /** Resolves with the number of previews rewritten (0 when the pass was done before). */
  done: Promise<number>;
  /** Stops after the current batch (shutdown); the next start goes on from the beginning. */
  stop(): void;
}

export function startPreviewRedaction(db: Queryable, log: Pick<Logger, 'info'>): PreviewRedaction {
  let stopped = false;
  const run = async (): Promise<number> => {
    if ((await db.query('select 1 from maintenance_done where name = $1', [PASS])).length > 0) return 0;
    let after = '00000000-0000-0000-0000-000000000000';
    let rewritten = 0;
    for (;;) {
      if (stopped) return rewritten;
      const rows = await db.query<{ id: string; input_preview: string }>(
        'select id, input_preview from usage_events where id > $1 and input_preview is not null order by id limit $2',
        [after, BATCH],
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      const changed = rows.map((r) => ({ id: r.id, preview: redactStoredPreview(r.input_preview) })).filter((r, i) => r.preview !== rows[i]!.input_preview);
      if (changed.length > 0) {
        await db.query(
          `update usage_events u set input_preview = c.preview
             from json_to_recordset($1::text::json) as c(id uuid, preview text) where u.id = c.id`,
          [JSON.stringify(changed)],
        );
        rewritten += changed.length;
      }
    }
    await db.query('insert into maintenance_done (name) values ($1) on conflict (name) do nothing', [PASS]);
    if (rewritten > 0) log.info('stored usage previews redacted', { count: rewritten });
    return rewritten;
  };
  return { done: run(), stop: () => void (stopped = true) };
}
