/** Bad input found while parsing in a worker (a malformed subtitle, a corrupt PDF or image): the caller's fault, a 400. */
export class IngestInputError extends Error {
  override name = 'IngestInputError';
}
