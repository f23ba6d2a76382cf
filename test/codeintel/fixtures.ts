// A small two-language repository the code-intelligence tests index.
export const REPO: Record<string, string> = {
  'pkg/store.py': `class Store:
    """Key-value store."""

    def __init__(self):
        self.items = {}

    def save(self, key, value):
        self.items[key] = value
        self._log(key)

    def _log(self, key):
        pass


def helper():
    return 1
`,
  'pkg/service.py': `from pkg.store import Store, helper


def handle(key, value):
    s = Store()
    s.save(key, value)
    return helper()


def _unused_internal():
    return 2
`,
  'pkg/api.py': `from pkg.service import handle


def endpoint(request):
    return handle(request.key, request.value)
`,
  'src/util.ts': `export function formatName(first: string, last: string): string {
  return first + ' ' + last;
}

export class Greeter {
  greet(name: string): string {
    return 'hi ' + formatName(name, '');
  }
}
`,
  'src/main.ts': `import { Greeter, formatName } from './util.js';

export function run(): string {
  const g = new Greeter();
  return g.greet(formatName('a', 'b'));
}
`,
};
