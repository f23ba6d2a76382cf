// The code scanner's packs and rule ids, for the host's tool schemas (the rules: workers/codeIntel/scan.ts).
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export type Pack = 'secrets' | 'injection' | 'deserialization' | 'path-traversal' | 'weak-crypto';

export const PACKS: readonly Pack[] = ['secrets', 'injection', 'deserialization', 'path-traversal', 'weak-crypto'];

export const RULE_IDS = [
  'secrets.aws-access-key', 'secrets.private-key', 'secrets.provider-token', 'secrets.hardcoded-credential',
  'injection.sql-string-building', 'injection.shell-command', 'injection.eval',
  'deserialization.pickle', 'deserialization.yaml-load', 'deserialization.java-object-stream', 'deserialization.node-serialize',
  'path-traversal.user-input-path',
  'weak-crypto.weak-password-hash', 'weak-crypto.des', 'weak-crypto.ecb-mode', 'weak-crypto.insecure-random-token',
] as const;
export type RuleId = (typeof RULE_IDS)[number];
