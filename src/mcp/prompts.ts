import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';

/**
 * A few prompts that start the service's common workflows; clients show them as slash commands. Each
 * only asks the model to call the tools; arguments are completed by completion/complete.
 */
const PROMPTS = [
  {
    name: 'budget-check',
    title: 'Check the context budget',
    description: 'Run gc_pre_flight and say how much room the context has before compressing anything.',
    arguments: [] as { name: string; description: string; required: boolean }[],
    render: () => 'Call gc_pre_flight, then tell me in two lines how much of my context window is used and whether compression is worth it now.',
  },
  {
    name: 'compress-text',
    title: 'Compress a text',
    description: 'Compress the given text for the current model at a chosen fidelity, keeping what matters.',
    arguments: [
      { name: 'text', description: 'The text to compress', required: true },
      { name: 'fidelity', description: `One of ${FIDELITIES.join(', ')} (default balanced)`, required: false },
    ],
    render: (args: Record<string, string>) =>
      `Call optimize_for_model with fidelity "${args.fidelity || 'balanced'}" on the text below and answer with the compressed text only.\n\n${args.text ?? ''}`,
  },
];

export const PROMPT_ARGUMENT_VALUES: Record<string, Record<string, readonly string[]>> = { 'compress-text': { fidelity: FIDELITIES } };

export function registerPrompts(server: Server): void {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt '${request.params.name}'; prompts are ${PROMPTS.map((p) => p.name).join(', ')}`);
    const args = request.params.arguments ?? {};
    const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
    if (missing.length) throw new McpError(ErrorCode.InvalidParams, `Prompt '${prompt.name}' needs ${missing.join(', ')}`);
    const allowed = PROMPT_ARGUMENT_VALUES[prompt.name] ?? {};
    for (const [name, values] of Object.entries(allowed)) {
      if (args[name] && !values.includes(args[name]!)) throw new McpError(ErrorCode.InvalidParams, `${name} must be one of ${values.join(', ')}`);
    }
    return { description: prompt.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }] };
  });
}
