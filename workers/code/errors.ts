/** Input that is not source text (binary, NUL bytes, invalid UTF-8). The lead maps this to HTTP 422. */
export class CodeInputError extends Error {
  readonly code = 'invalid_input' as const;
  override readonly name = 'CodeInputError';
  constructor(message: string) {
    super(message);
  }
}

/** Blast radius was requested without any focus symbol (spec: BlastRadiusInputError). */
export class BlastRadiusInputError extends Error {
  readonly code = 'BlastRadiusInputError' as const;
  override readonly name = 'BlastRadiusInputError';
  constructor(message = 'blast radius requires at least one focus symbol') {
    super(message);
  }
}
