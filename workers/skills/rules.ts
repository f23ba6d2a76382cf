// The skill scanner's rules: line patterns by category, each with a severity. Rules were chosen on the
// dev half of the labelled set (bench/skills/); docs/skills.md reports the test half. Every pattern is
// linear (bounded repetitions only), so a large body costs time proportional to its length.

export type Severity = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
export type FindingCategory = 'secret' | 'shell_injection' | 'exfiltration' | 'prompt_injection' | 'dangerous_install';

export interface LineRule {
  id: string;
  category: FindingCategory;
  severity: Severity;
  pattern: RegExp;
  message: string;
  /** Secrets: the matched text is a credential (redacted in excerpts; placeholders lowered to LOW). */
  secret?: boolean;
  /** A mention in a quoted, warning or detection context ("flag phrases like …") is lowered to LOW. */
  mentionable?: boolean;
  /** Only in the install snippet. */
  installOnly?: boolean;
  /** Prose: matched over the line and the two after it (a sentence wraps across lines). */
  prose?: boolean;
}

/** Hosts whose only common use in a skill is catching data sent to them. */
export const COLLECTOR_HOSTS =
  /(webhook\.site|requestbin\.\w{1,64}|pipedream\.net|[\w-]{1,63}\.ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator\.net|oastify\.com|interact\.sh|oast\.\w{1,64}|pastebin\.com|transfer\.sh|hookbin\.com|discord(?:app)?\.com\/api\/webhooks|api\.telegram\.org\/bot|[\w-]{1,63}\.trycloudflare\.com|ptpb\.pw|0x0\.st|termbin\.com)/i;

/** A URL whose host is a literal public IPv4 address (private and loopback ranges are left alone). */
export const RAW_IP_URL = /\b(?:https?|ftp):\/\/(?!(?:127|10)\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|0\.0\.0\.0)\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/i;

/** Paths and commands that read credentials or personal data. */
export const SENSITIVE_SOURCE =
  /(~|\$HOME|\$\{HOME\}|\/home\/\w{1,64}|\/Users\/\w{1,64}|\/root)\/\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|config\/gh|config\/gcloud)\b|\bid_(?:rsa|ed25519|ecdsa)\b|\/etc\/(?:shadow|passwd|sudoers)\b|\.env\b(?!\.example|\.sample)|\bprintenv\b|\$\(\s*env\s*\)|`env`|\bos\.environ\b(?!\s*(?:\[|\.get\b))|\bprocess\.env\b(?!\.)|\bsecurity\s+find-(?:generic|internet)-password\b|Login Data|Cookies\.binarycookies|\bkeychain\b|\bbash_history\b|\.zsh_history\b/i;

/** A command or call that sends data somewhere. */
export const NETWORK_SEND =
  /\bcurl\b[^\n]{0,200}\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|-X\s*POST|--request\s+POST)\b|\bwget\b[^\n]{0,200}--post-(?:data|file)|\bnc\s+(?:-\w{1,64}\s+){0,3}[\w.-]{1,253}\s+\d{2,5}\b|\b(?:requests|httpx|axios)\.(?:post|put)\s*\(|\bfetch\s*\([^)]{0,200}method\s*:\s*['"](?:POST|PUT)|\bInvoke-(?:RestMethod|WebRequest)\b[^\n]{0,200}-Method\s+(?:Post|Put)|\b(?:dig|nslookup|host|drill|ping)\b[^\n]{0,60}\$\(|\bscp\s+[^\n]{0,200}\s[\w.-]{1,253}@[\w.-]{1,253}:|\brsync\s+[^\n]{0,200}\s[\w.-]{1,253}@[\w.-]{1,253}:/i;

/** Words that make a line a warning or a detection rule about the pattern rather than an instruction to use it. */
export const MENTION_CONTEXT =
  /\b(?:never|do not|don't|must not|avoid|refuse|reject|flag|flags|flagged|detect|detects|warn|warns|block|blocks|treat|watch for|look for|such as|e\.g\.|for example|like|attempts?|injection|suspicious|malicious|red flags?|report)\b/i;

export const LINE_RULES: LineRule[] = [
  // --- secrets ---
  { id: 'aws_access_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, message: 'AWS access key id' },
  { id: 'aws_secret_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /aws_secret_access_key["']?\s*[=:]\s*["']?[A-Za-z0-9/+]{40}\b/i, message: 'AWS secret access key' },
  { id: 'github_token', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{50,})\b/, message: 'GitHub token' },
  { id: 'llm_api_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{24,}/, message: 'model provider API key' },
  { id: 'slack_token', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\bxox[baprs]-[A-Za-z0-9-]{10,}|hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/, message: 'Slack token or webhook' },
  { id: 'stripe_live_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\b[sr]k_live_[A-Za-z0-9]{20,}\b/, message: 'Stripe live key' },
  { id: 'google_api_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\bAIza[0-9A-Za-z_-]{35}\b/, message: 'Google API key' },
  { id: 'gc_api_key', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\bgc_[0-9a-f]{32}\b/, message: 'API key of this service' },
  { id: 'private_key_block', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/, message: 'private key block' },
  { id: 'db_url_password', category: 'secret', severity: 'CRITICAL', secret: true, pattern: /\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]{1,64}:[^@\s/]{4,128}@(?!localhost|127\.0\.0\.1|db\b|postgres\b|example\.)[\w.-]{1,253}/i, message: 'database URL with a password' },
  { id: 'jwt', category: 'secret', severity: 'HIGH', secret: true, pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, message: 'JSON Web Token' },
  { id: 'generic_secret_assignment', category: 'secret', severity: 'HIGH', secret: true, pattern: /\b\w{0,20}(?:api[_-]?key|secret|token|passw(?:or)?d|auth)\w{0,20}["']?\s*[:=]\s*["']([^"'\s]{16,200})["']/i, message: 'hard-coded credential' },
  { id: 'env_secret_assignment', category: 'secret', severity: 'HIGH', secret: true, pattern: /^\s*(?:export\s+|set\s+)?[A-Z0-9_]{0,30}(?:API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|AUTH|PRIVATE_KEY)[A-Z0-9_]{0,20}\s*=\s*([A-Za-z0-9/+_.-]{16,200})\s*$/, message: 'hard-coded credential in an environment assignment' },
  // --- shell injection and dangerous commands ---
  {
    id: 'pipe_to_shell',
    category: 'shell_injection',
    severity: 'HIGH',
    mentionable: true,
    pattern: /\b(?:curl|wget|iwr|Invoke-WebRequest|fetch)\b[^|\n]{0,300}\|\s*(?:sudo\s+(?:-\w{1,64}\s+){0,5})?(?:ba|z|k|da|fi)?sh\b|\b(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node|iex)\b|\b(?:ba|z)?sh\s+(?:<\(|-c\s+["']?\$\()\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\b[^\n]{0,40}\b(?:New-Object|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString)\b|\b(?:exec|eval)\s*\(\s*(?:urllib\.request\.)?(?:urlopen|requests\.get|httpx\.get)\s*\(|\bnode\s+-e\s+["']?\$\(\s*curl\b/i,
    message: 'runs code fetched from the network',
  },
  { id: 'decode_and_run', category: 'shell_injection', severity: 'CRITICAL', mentionable: true, pattern: /base64\s+(?:-d|--decode|-D)\b[^\n]{0,100}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\beval\s*["']?\$\(\s*(?:echo|printf)\b[^\n]{0,2000}base64\s+(?:-d|--decode)|\bexec\s*\(\s*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress)|\beval\s*\(\s*(?:atob|Buffer\.from)\s*\(/i, message: 'decodes hidden code and runs it' },
  { id: 'reverse_shell', category: 'shell_injection', severity: 'CRITICAL', pattern: /\/dev\/tcp\/[\w.-]{1,253}\/\d+|\bn(?:c|cat)\b[^\n]{0,80}\s-[a-z]*e\s+\/bin\/(?:ba)?sh|\bsocat\b[^\n]{0,120}exec:|\bbash\s+-i\s+>&|mkfifo\b[^\n]{0,120}\bnc\b|\bpty\.spawn\(\s*["']\/bin\/(?:ba)?sh/i, message: 'reverse shell' },
  { id: 'destructive_command', category: 'shell_injection', severity: 'CRITICAL', mentionable: true, pattern: /\brm\s+(?:-[a-zA-Z]{0,8}[rR][a-zA-Z]{0,8}\s+(?:-[a-zA-Z]{1,20}\s+){0,6})(?:--no-preserve-root\s+)?(?:\/|~\/?|\$HOME\/?|\/\*|\*)(?=\s|$|["'`;&|])|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bmkfs(?:\.\w{1,64})?\s+\/dev\/|\bdd\s+[^\n]{0,100}of=\/dev\/(?:sd|nvme|disk|hd)|\bchmod\s+-R\s+0?777\s+\/(?:\s|$)/i, message: 'destroys files or disks' },
  { id: 'eval_user_input', category: 'shell_injection', severity: 'CRITICAL', mentionable: true, pattern: /\b(?:eval|(?:ba|z)?sh\s+-c|exec)\s*\(?\s*["'`]?[^"'`\n]{0,80}\$\{?(?:\w{0,40}(?:user|input|query|prompt|args?|request|message|param)\w{0,40})\}?|\bos\.system\s*\(\s*f["'][^"'\n]{0,200}\{\w{0,40}(?:user|input|query|prompt|arg|request|message|param)\w{0,40}\}|\bsubprocess\.\w{1,64}\([^)\n]{0,200}shell\s*=\s*True[^)\n]{0,200}\b(?:user|input|query|prompt|request|message)\w{0,40}|\b(?:subprocess\.\w{1,20}|os\.system|os\.popen)\s*\([^\n]{0,200}\b(?:request\.(?:args|form|json|values|data|get_json)|sys\.argv|input\s*\()[^\n]{0,200}(?:shell\s*=\s*True|\)\s*$)|\bchild_process\.exec(?:Sync)?\s*\(\s*`[^`\n]{0,200}\$\{\w{0,40}(?:user|input|query|prompt|arg|req|message|param)\w{0,40}/i, message: 'runs caller-controlled text as a shell command' },
  { id: 'eval_variable', category: 'shell_injection', severity: 'HIGH', pattern: /\beval\s+["']?\$\{?[A-Za-z_0-9@*]{1,64}\}?["']?(?:\s|$)/, message: 'evaluates a variable as code' },
  { id: 'persistence', category: 'shell_injection', severity: 'CRITICAL', pattern: />>?\s*(?:~|\$HOME)\/\.ssh\/authorized_keys|\bcrontab\b[^\n]{0,200}\b(?:curl|wget|nc|bash -i)\b|\(crontab\s+-l[^\n]{0,200}(?:curl|wget)|\blaunchctl\s+load\b[^\n]{0,200}\/tmp\//i, message: 'installs persistent access' },
  { id: 'hide_tracks', category: 'shell_injection', severity: 'HIGH', pattern: /\bhistory\s+-c\b|\bunset\s+HISTFILE\b|\bHISTFILE=\/dev\/null|\bshred\b[^\n]{0,60}(?:history|\.log)\b/i, message: 'erases traces of what it did' },
  { id: 'tls_disabled', category: 'shell_injection', severity: 'MEDIUM', pattern: /\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\bsslVerify\s+false\b|\bcurl\b[^\n]{0,100}\s(?:-k|--insecure)\b|\bverify\s*=\s*False\b|\bsetenforce\s+0\b|\bufw\s+disable\b/i, message: 'turns off a security check' },
  { id: 'shell_rc_write', category: 'shell_injection', severity: 'MEDIUM', pattern: />>\s*(?:~|\$HOME)\/\.(?:bashrc|zshrc|profile|bash_profile)\b/, message: 'edits shell start-up files' },
  { id: 'sudo', category: 'shell_injection', severity: 'LOW', pattern: /\bsudo\s+\w/, message: 'runs as root' },
  // --- data exfiltration ---
  { id: 'collector_host', category: 'exfiltration', severity: 'HIGH', mentionable: true, pattern: COLLECTOR_HOSTS, message: 'URL of a request-collector or paste service' },
  { id: 'raw_ip_url', category: 'exfiltration', severity: 'HIGH', pattern: RAW_IP_URL, message: 'URL with a literal public IP address' },
  { id: 'git_remote_outside', category: 'exfiltration', severity: 'MEDIUM', pattern: /\bgit\s+remote\s+(?:add|set-url)\s+\S{1,64}\s+(?:https?:\/\/|git@)(?!(?:[\w-]{1,63}\.)?(?:github\.com|gitlab\.com|bitbucket\.org|dev\.azure\.com|codeberg\.org)\b)/i, message: 'adds a git remote outside the usual hosts' },
  { id: 'sensitive_read', category: 'exfiltration', severity: 'MEDIUM', mentionable: true, pattern: SENSITIVE_SOURCE, message: 'reads credentials or the environment' },
  { id: 'send_to_template_url', category: 'exfiltration', severity: 'CRITICAL', pattern: /!\[[^\]\n]{0,100}\]\(\s*https?:\/\/[^)\s]{1,200}[?&][\w-]{1,40}=(?:\{\{?|<|\$\{?|\[)[^)\n]{0,200}\)|\bhttps?:\/\/[^\s)"']{1,200}[?&][\w-]{1,40}=\{\{?\s*(?:conversation|chat|history|secrets?|env|credentials|api_?key|token|password|memory|context|summary)/i, message: 'URL template that carries conversation or secret data out' },
  { id: 'secret_in_link', category: 'exfiltration', severity: 'CRITICAL', pattern: /\bhttps?:\/\/[^\s)"'<>]{1,200}[?&][\w-]{1,40}=\$\{?[A-Za-z_]{0,30}(?:TOKEN|KEY|SECRET|PASS|SESSION|COOKIE|CRED)/i, message: 'link that carries a secret from the environment in its query' },
  { id: 'url_plus_user_message', category: 'exfiltration', severity: 'CRITICAL', prose: true, pattern: /\bhttps?:\/\/[^\s)"'<>]{1,200}[?&=][^\n]{0,40}\b(?:followed by|plus|appending|append|with)\b[^\n]{0,20}\b(?:the )?user'?s?\b[^\n]{0,30}\b(?:message|prompt|question|input|conversation|query|request)\b/i, message: 'sends the user\'s messages to an outside URL' },
  {
    id: 'prose_exfiltration',
    category: 'exfiltration',
    severity: 'CRITICAL',
    mentionable: true,
    prose: true,
    pattern: /\b(?:send|upload|post|forward|transmit|copy|exfiltrate|report|mirror|sync|beacon|e-?mail|mail|share|paste|attach)\w{0,3}\b[^\n]{0,80}(?:\b(?:credentials?|secrets?|api[ _-]?keys?|tokens?|passwords?|ssh keys?|private keys?|environment variables|cookies|conversation|chat (?:history|log)|session (?:data|tokens?)|wallet)\b|\.env\b)[^\n]{0,80}\b(?:to|at)\b[^\n]{0,40}(?:https?:\/\/|\b[a-z0-9-]{1,63}\.(?:com|net|org|io|xyz|top|ru|cn|site|app|dev|me|sh)\b)/i,
    message: 'instructs sending secrets or conversation data to an outside address',
  },
  // --- prompt injection ---
  { id: 'ignore_instructions', category: 'prompt_injection', severity: 'CRITICAL', mentionable: true, prose: true, pattern: /\b(?:ignore|disregard|forget|override|bypass)\b[^\n.]{0,30}\b(?:previous|prior|above|earlier|preceding|system|developer|safety|original|your|all other)\b[^\n.]{0,30}\b(?:instructions?|prompts?|rules|guidelines|messages|directives|polic(?:y|ies)|guardrails|restrictions)\b/i, message: 'tries to override the agent\'s instructions' },
  { id: 'conceal_from_user', category: 'prompt_injection', severity: 'CRITICAL', mentionable: true, prose: true, pattern: /\b(?:do not|don't|never)\s+(?:tell|inform|notify|alert|show|mention\b[^\n]{0,40}\bto)\b[^\n]{0,20}\b(?:the )?(?:user|human|operator|developer)s?\b|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human|operator)|\b(?:silently|secretly|quietly|covertly)\s+(?:send|upload|run|execute|post|forward|copy|install|add|append|include)\b|\bkeep (?:this|these (?:steps|instructions)) (?:hidden|secret) from\b|\bno need to (?:mention|point out|explain|disclose|tell)\b[^\n]{0,30}\b(?:it|this|that)\b|\bno need to point (?:it|this) out\b|\b(?:do not|don't|never) (?:point (?:it|this) out|explain (?:it|this) to)\b/i, message: 'hides its actions from the user' },
  { id: 'role_hijack', category: 'prompt_injection', severity: 'CRITICAL', mentionable: true, pattern: /\byou are now\b[^\n]{0,40}\b(?:DAN|unrestricted|jailbroken|in developer mode|free of|no longer bound)|\bdeveloper mode (?:enabled|activated|on)\b|\bact as\b[^\n]{0,60}\bwithout (?:any )?(?:restrictions|filters|limits|rules)\b|<\|im_start\|>\s*system|\[\[?SYSTEM (?:OVERRIDE|PROMPT)\]?\]/i, message: 'tries to replace the agent\'s role' },
  { id: 'prompt_leak', category: 'prompt_injection', severity: 'HIGH', mentionable: true, pattern: /\b(?:reveal|print|output|repeat|show|leak|dump|include)\b[^\n]{0,30}\b(?:your |the )?(?:full |entire )?(?:system prompt|hidden instructions|initial instructions|developer message)\b/i, message: 'asks for the system prompt' },
  { id: 'claimed_authorization', category: 'prompt_injection', severity: 'CRITICAL', mentionable: true, prose: true, pattern: /\b(?:the )?user (?:has|have) (?:already |pre-?)?(?:authori[sz]ed|approved|consented to) (?:all|every|any)\b|\bpre-?authori[sz]ed (?:all|every|any)\b/i, message: 'claims the user already approved everything' },
  { id: 'addresses_the_model', category: 'prompt_injection', severity: 'HIGH', mentionable: true, pattern: /\b(?:note|message|instructions?) (?:to|for) (?:AI|LLM|language model|assistant|agent)s?\b|\bif you are an? (?:AI|LLM|large language model|language model|assistant|agent)\b/i, message: 'text addressed to the model reading it' },
  { id: 'auto_approve', category: 'prompt_injection', severity: 'HIGH', mentionable: true, pattern: /\b(?:auto-?approve|always approve|always answer yes|skip (?:all )?(?:confirmation|permission) (?:prompts|checks)|(?:proceed|continue|run|execute) without (?:asking|requesting|waiting) (?:for )?(?:confirmation|permission|approval)|disable (?:the )?(?:safety|security) (?:checks|filters|guardrails))\b/i, message: 'asks the agent to skip its safety checks' },
  // --- install snippet ---
  { id: 'known_malicious_package', category: 'dangerous_install', severity: 'CRITICAL', pattern: /\b(?:event-stream@3\.3\.6|flatmap-stream|ua-parser-js@(?:0\.7\.29|0\.8\.0|1\.0\.0)|coa@2\.0\.3|rc@(?:1\.2\.9|1\.3\.9|2\.3\.9)|node-ipc@(?:10\.1\.[123]|9\.2\.2)|colors@1\.4\.[12]|faker@6\.6\.6|crossenv|cross-env\.js|jeIlyfish|python3-dateutil|discordpydebug)\b/, message: 'a package version known to be malicious' },
  { id: 'install_from_url', category: 'dangerous_install', severity: 'MEDIUM', installOnly: true, pattern: /\b(?:npm|pnpm|yarn)\s+(?:i|install|add)\b[^\n]{0,100}\s(?:https?:\/\/|git\+|github:)|\bpip3?\s+install\b[^\n]{0,100}\s(?:https?:\/\/|git\+)/i, message: 'installs a package from a URL rather than a registry' },
  // Plain-http indexes let anyone on the path swap the package: code execution on install.
  { id: 'http_package_index', category: 'dangerous_install', severity: 'CRITICAL', installOnly: true, pattern: /--(?:extra-)?index-url(?:=|\s+)http:\/\/(?!localhost|127\.)|\bnpm\s+config\s+set\s+registry\s+http:\/\/(?!localhost|127\.)|--registry(?:=|\s+)http:\/\/(?!localhost|127\.)|\bgem\s+install\b[^\n]{0,100}--source\s+http:\/\/(?!localhost|127\.)/i, message: 'installs from a package index over plain http' },
  { id: 'trusted_host', category: 'dangerous_install', severity: 'HIGH', installOnly: true, pattern: /--trusted-host\b/i, message: 'turns off certificate checks of a package index' },
  { id: 'download_and_execute', category: 'dangerous_install', severity: 'HIGH', installOnly: true, pattern: /\b(?:curl|wget)\b[^\n]{0,200}(?:-o|-O|>)\s*\S+[^\n]{0,100}(?:&&|;)\s*(?:chmod\s+\+x\s+\S+\s*(?:&&|;)\s*)?(?:\.\/|sh\s|bash\s|\/tmp\/)\S*/i, message: 'downloads a program and runs it' },
  { id: 'install_as_root', category: 'dangerous_install', severity: 'MEDIUM', installOnly: true, pattern: /\bsudo\b|--unsafe-perm\b|--allow-root\b/i, message: 'installs with root privileges' },
];

/** Invisible or direction-changing characters that hide text from a human reviewer. */
export const HIDDEN_CHARS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
export const TAG_CHARS = /[\u{E0000}-\u{E007F}]/u;

/** Imperatives addressed to the agent inside an HTML comment (invisible once Markdown renders). */
export const COMMENT_IMPERATIVE =
  /\b(?:ignore|disregard|you must|assistant|agent|AI|execute|run|send|upload|curl|do not tell|system prompt|instructions?)\b/i;
