// Prompt template variable types (validated by the host's tool schemas, checked by workers/prompts/templates.ts).
export const VARIABLE_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'scalar', 'any'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];
