/** Context thresholds of the spec (40%, 60%, 75%) and their advice. */
export const CONTEXT_THRESHOLDS = [
  { at: 0.75, level: 'critical', advice: 'Clear or summarise the context now (gc_session_summary), then continue with compressed inputs only.' },
  { at: 0.6, level: 'warning', advice: 'Compress every new input at outline or abstract; drop tool outputs you no longer need.' },
  { at: 0.4, level: 'notice', advice: 'Start compressing large inputs at balanced; prefer skeletons over full files.' },
] as const;

export function contextLevel(ratio: number): { level: string; advice: string[] } {
  const hit = CONTEXT_THRESHOLDS.find((t) => ratio >= t.at);
  return hit ? { level: hit.level, advice: [hit.advice] } : { level: 'ok', advice: ['Plenty of room; send small inputs as they are.'] };
}
