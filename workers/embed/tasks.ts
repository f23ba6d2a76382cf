import { getEmbedder } from './index.js';

// Piscina task registry fragment; the worker entry merges this into its table.
// Float32Array is structured-cloneable, so vectors cross the thread boundary as-is.
export const embedTasks = {
  embed: async (i: { texts: string[] }) => {
    const e = await getEmbedder();
    const v = await e.embed(i.texts);
    return { dims: e.dims, model: e.modelId, vectors: v };
  },
};
