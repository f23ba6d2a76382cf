// Top-level field names of a tool or route input schema, seen through zod 4's wrappers.

interface Def {
  type?: string;
  shape?: Record<string, unknown>;
  in?: unknown;
  out?: unknown;
  innerType?: unknown;
}

const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The object's keys through pipes (z.preprocess, transforms), defaults, optionals and nullables; [] when no object. */
export function objectFields(schema: unknown): string[] {
  let s: unknown = schema;
  for (let i = 0; i < 12; i++) {
    const def = defOf(s);
    if (!def) return [];
    if (def.type === 'object') return Object.keys(def.shape ?? {});
    // z.preprocess(fn, obj) is pipe(transform, obj): the object is the pipe's output side.
    if (def.type === 'pipe') s = defOf(def.out)?.type === 'transform' ? def.in : def.out;
    else s = def.innerType;
  }
  return [];
}
