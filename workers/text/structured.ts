// Structured text the engine cuts into whole values instead of sentences: JSON (and JSON Lines),
// YAML and XML, tried in that order (each one rejects the others' texts quickly by their first character).
import { jsonUnits } from './json.js';
import { xmlUnits } from './xml.js';
import { yamlUnits } from './yaml.js';
import type { TreeUnits } from './tree.js';

export function structuredUnits(text: string): TreeUnits | null {
  return jsonUnits(text) ?? yamlUnits(text) ?? xmlUnits(text);
}
