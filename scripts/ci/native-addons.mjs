// The native addons the service uses, loaded and used once on the Node running this script (.ci/run runs
// it on Node 24 before the surface tests there): all three are N-API, so the builds made at install on
// another Node major should load. Exits 1 naming each addon that does not.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'package.json'));

const checks = {
  'tree-sitter': () => {
    const Parser = require('tree-sitter');
    const parser = new Parser();
    parser.setLanguage(require('tree-sitter-typescript').typescript);
    const type = parser.parse('export const answer: number = 42;').rootNode.type;
    if (type !== 'program') throw new Error(`parsed to ${type}`);
  },
  'hnswlib-node': () => {
    const { HierarchicalNSW } = require('hnswlib-node');
    const index = new HierarchicalNSW('cosine', 3);
    index.initIndex(2);
    index.addPoint([1, 0, 0], 0);
    index.addPoint([0, 1, 0], 1);
    const { neighbors } = index.searchKnn([0.9, 0.1, 0], 1);
    if (neighbors[0] !== 0) throw new Error(`nearest was ${neighbors[0]}`);
  },
  'onnxruntime-node': async () => {
    const ort = require('onnxruntime-node');
    const session = await ort.InferenceSession.create(join(root, 'models/glove-sif-100d/model.onnx'));
    if (!session.inputNames.length) throw new Error('the shipped model has no inputs');
  },
};

let failed = 0;
for (const [name, check] of Object.entries(checks)) {
  try {
    await check();
    console.log(`ok   ${name} on Node ${process.version} (ABI ${process.versions.modules})`);
  } catch (err) {
    failed++;
    console.error(`FAIL ${name} on Node ${process.version}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}
process.exit(failed ? 1 : 0);
