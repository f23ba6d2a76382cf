// Words that mark a line or record as something went wrong (errors, failures, warnings, timeouts):
// what a reader of a log or a runner's output acts on first. One pattern for tool output and JSON records.
export const ALERT = /\b(?:error|errors|err!|fatal|panic(?:ked)?|exception|traceback|fail(?:ed|ure|ing)?|warn(?:ing)?s?|assert(?:ion)?|denied|refused|cannot|can't|unable|undefined reference|segmentation fault|timed? ?out)\b|^\s*(?:E|W|F)\s|✗|✖|×/i;
