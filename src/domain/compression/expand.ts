// Expanding navigable markers (docs/markers.md): the use case behind POST /v1/expand, the MCP
// expand_marker tool and modulate_region's marker_ids.
import type { Services } from '../../services.js';
import { MARKER_ID } from '../../../workers/shared/markers.js';
import { invalidInput, notFound } from '../errors.js';
import { loadLayouts } from './markerStore.js';

/** Most ids one call expands. */
export const MAX_EXPAND_IDS = 500;

export interface Expansion {
  id: string;
  /** Exactly the original text the marker stood for. */
  text: string;
}

/** The exact hidden text of each id, in the order asked; any id not the caller's (or unknown) is a 404. */
export async function expandMarkers(services: Pick<Services, 'db' | 'background'>, userId: string, ids: readonly string[], field = 'ids'): Promise<Expansion[]> {
  const parsed = ids.map((id) => MARKER_ID.exec(id));
  const bad = ids.map((_, i) => (parsed[i] ? -1 : i)).filter((i) => i >= 0);
  if (bad.length) {
    throw invalidInput(
      `Not a marker id: ${ids[bad[0]!]!.slice(0, 40)} (expected <12 digits>.<n>, as in "[… 212 tokens #482913650271.0]")`,
      bad.map((i) => ({ loc: field === 'id' ? [field] : [field, i], msg: 'not a marker id (<12 digits>.<n>)', type: 'value_error.marker_id' })),
    );
  }
  const layouts = await loadLayouts(services, userId, [...new Set(parsed.map((m) => m![1]!))]);
  const out: Expansion[] = [];
  const missing: string[] = [];
  ids.forEach((id, i) => {
    const [, ref, n] = parsed[i]!;
    const layout = layouts.get(ref!);
    const k = Number(n) * 2;
    if (!layout || layout.spans[k + 1] === undefined) missing.push(id);
    else out.push({ id, text: layout.content.slice(layout.spans[k]!, layout.spans[k + 1]!) });
  });
  if (missing.length) throw notFound(`Unknown marker ids: ${missing.slice(0, 10).join(', ')}`, { missing_ids: missing });
  return out;
}
