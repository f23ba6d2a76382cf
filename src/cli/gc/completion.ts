// `semcomp completion bash|zsh|fish`: a completion script generated from the command tree itself
// (commander has none built in), so a new command or option completes without editing a script.
import type { Command } from 'commander';
import { CliError, EXIT } from './common.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Node {
  /** Space-separated path of command names from the root ('' for the root). */
  path: string;
  command: Command;
}

function nodes(root: Command): Node[] {
  const out: Node[] = [];
  const walk = (command: Command, path: string) => {
    out.push({ path, command });
    for (const sub of command.commands) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return out;
}

const flags = (c: Command) => c.options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
const words = (n: Node, root: Command) => [...n.command.commands.map((c) => c.name()), ...flags(n.command), ...flags(root), '--help'];
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Bash: the command path is the words so far that name commands; each path has its own word list. */
function bash(root: Command): string {
  const name = root.name();
  const fn = `_${name.replace(/\W/g, '_')}_complete`;
  const all = nodes(root);
  const paths = all.filter((n) => n.path).map((n) => quote(n.path)).join('|');
  const cases = all.map((n) => `    ${quote(n.path)}) words=${quote(words(n, root).join(' '))} ;;`).join('\n');
  return `# bash completion for ${name}: eval "$(${name} completion bash)" (e.g. in ~/.bashrc)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${paths}) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

/** Zsh runs the bash function through its bashcompinit layer: one generator, the same answers. */
function zsh(root: Command): string {
  return `# zsh completion for ${root.name()}: eval "$(${root.name()} completion zsh)" (e.g. in ~/.zshrc)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(root).split('\n').slice(1).join('\n')}`;
}

function fish(root: Command): string {
  const name = root.name();
  const lines = [`# fish completion for ${name}: ${name} completion fish > ~/.config/fish/completions/${name}.fish`, `complete -c ${name} -f`];
  const option = (cond: string, o: Command['options'][number]) =>
    `complete -c ${name}${cond} ${o.long ? `-l ${o.long.slice(2)}` : ''}${o.short ? ` -s ${o.short.slice(1)}` : ''}${o.required || o.optional ? ' -r' : ''} -d ${quote(o.description)}`;
  for (const o of root.options) lines.push(option('', o));
  for (const n of nodes(root)) {
    const names = n.path ? n.path.split(' ') : [];
    // At the root: no command yet; below: the last command word has been seen.
    const cond = names.length === 0 ? ` -n '__fish_use_subcommand'` : ` -n '__fish_seen_subcommand_from ${names[names.length - 1]}'`;
    for (const sub of n.command.commands) lines.push(`complete -c ${name}${cond} -a ${sub.name()} -d ${quote(sub.description())}`);
    if (n.path) for (const o of n.command.options) lines.push(option(cond, o));
    // Commands that take a FILE or DIR complete file names.
    if (n.path && n.command.registeredArguments.some((a) => /FILE|DIR/.test(a.description))) lines.push(`complete -c ${name}${cond} -F`);
  }
  return lines.join('\n') + '\n';
}

export function completionScript(root: Command, shell: string): string {
  switch (shell) {
    case 'bash':
      return bash(root);
    case 'zsh':
      return zsh(root);
    case 'fish':
      return fish(root);
    default:
      throw new CliError(`no completion for shell '${shell}'; one of: ${SHELLS.join(', ')}`, EXIT.usage);
  }
}
