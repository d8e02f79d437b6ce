complete -c toolcap -s m -l max -d 'Budget for the kept output (head + tail) [default: 10k]' -r
complete -c toolcap -l total -d 'Everything printed, header and markers included, within SIZE' -r
complete -c toolcap -l tokens -d 'Budget in tokens (of 4 bytes, or of --tokenizer)' -r
complete -c toolcap -l window -d 'Budget from a context window of TOKENS: floor(TOKENS / (2 * --recent)) tokens' -r
complete -c toolcap -l recent -d 'With --window: the results kept whole in the context [default: 4]' -r
complete -c toolcap -l window-ceiling -d 'With --window: the most bytes its budget may be [default: 256Ki]' -r
complete -c toolcap -l tokenizer -d 'What a token is: approx (4 bytes), o200k or cl100k [default: approx]' -r -f -a "approx\t''
o200k\t''
cl100k\t''"
complete -c toolcap -l count-limit -d 'Count real tokens exactly up to SIZE bytes, then extrapolate' -r
complete -c toolcap -l chars -d 'Budget in Unicode characters instead of bytes' -r
complete -c toolcap -l head -d 'Bytes kept from the start (default: half of --max)' -r
complete -c toolcap -l tail -d 'Bytes kept from the end (default: the rest of --max)' -r
complete -c toolcap -s n -l lines -d 'Also cap by lines: first N/2 and last N - N/2 lines' -r
complete -c toolcap -l cut -d 'Where cuts land: lines (near a line boundary) or bytes' -r -f -a "lines\t''
bytes\t''"
complete -c toolcap -l spill -d 'Save every input byte to FILE (created 0600 or truncated)' -r -F
complete -c toolcap -l spill-dir -d 'Save the full input in the spill store DIR; kept only if cut' -r -F
complete -c toolcap -l show -d 'Print a stored output byte for byte (ID: any unique prefix)' -r
complete -c toolcap -l grep -d 'With --show: only the lines matching REGEX, each as NUMBER:LINE' -r
complete -c toolcap -l context -d 'With --grep: N lines of context around each match, as grep -C N' -r
complete -c toolcap -l summary -d 'Print one line that stands for a stored output' -r
complete -c toolcap -l retain -d 'Keep at most N outputs in the store [default: 200]' -r
complete -c toolcap -l retain-size -d 'Keep at most SIZE of outputs in the store [default: 1Gi]' -r
complete -c toolcap -l style -d 'Output format: toolcap, codex or verifiers (as those harnesses truncate)' -r -f -a "toolcap\t''
codex\t''
verifiers\t''"
complete -c toolcap -l header -d 'Header text, with placeholders (\'\' for none)' -r
complete -c toolcap -l marker -d 'Marker text, with placeholders' -r
complete -c toolcap -l max-line -d 'Shorten lines longer than SIZE, keeping both ends' -r
complete -c toolcap -l binary -d 'Binary input: text (as is) or summary (one line)' -r -f -a "text\t''
summary\t''"
complete -c toolcap -l keep -d 'Also show lines of the middle matching REGEX (repeatable)' -r
complete -c toolcap -l keep-error -d 'As --keep, but the lines are errors, shown first (repeatable)' -r
complete -c toolcap -l keep-context -d 'Lines kept before and after each kept match [default: 0]' -r
complete -c toolcap -l keep-max -d 'Share of the budget for kept lines and their markers [default: a quarter]' -r
complete -c toolcap -l format -d 'What the input holds: text, json, diff, csv or auto' -r -f -a "text\t''
json\t''
diff\t''
csv\t''
auto\t''"
complete -c toolcap -l json-limit -d 'Largest JSON document parsed (default 64Mi); larger is text' -r
complete -c toolcap -l fold-pattern -d 'With --fold: lines matching REGEX are similar to each other' -r
complete -c toolcap -l redact-pattern -d 'Also redact what REGEX matches (repeatable; implies --redact)' -r
complete -c toolcap -l profile -d 'Per-tool options: NAME, auto (by the command or input) or none' -r -f -a "(toolcap --list-profiles 2>/dev/null)"
complete -c toolcap -l hook -d 'Be AGENT\'s hook: rewrite its shell call (stdin JSON) to run through toolcap' -r -f -a "claude-code\t'Claude Code: a PreToolUse hook for its Bash tool'"
complete -c toolcap -l install-hook -d 'Add toolcap\'s hook to AGENT\'s settings (kept otherwise as they were)' -r -f -a "claude-code\t'Claude Code: a PreToolUse hook for its Bash tool'"
complete -c toolcap -l uninstall-hook -d 'Remove toolcap\'s hook from AGENT\'s settings' -r -f -a "claude-code\t'Claude Code: a PreToolUse hook for its Bash tool'"
complete -c toolcap -l settings -d 'With --install-hook/--uninstall-hook: the settings file [default: ~/.claude/settings.json]' -r -F
complete -c toolcap -s c -l command -d 'Run STRING with /bin/sh -c (or --shell)' -r
complete -c toolcap -l shell -d 'Shell for -c [default: /bin/sh]' -r
complete -c toolcap -l stderr -d 'Child\'s stderr: merged into stdout, or capped separately' -r -f -a "merged\t''
separate\t''"
complete -c toolcap -l stderr-max -d 'Budget for the separate stderr [default: --max]' -r
complete -c toolcap -l timeout -d 'Stop the command after DURATION (exit 124)' -r
complete -c toolcap -l kill-after -d 'Wait this long after SIGTERM before SIGKILL [default: 5s]' -r
complete -c toolcap -l drain -d 'Read at most this long after the command exits [default: 2s]' -r
complete -c toolcap -l store -d 'Spill into the default store (~/.cache/toolcap/spill)'
complete -c toolcap -l no-spill -d 'Do not spill, even when TOOLCAP_SPILL_DIR is set'
complete -c toolcap -l list -d 'List the store\'s outputs, newest first'
complete -c toolcap -l prune -d 'Apply retention to the store now, and remove the outputs of killed runs, which no run will list'
complete -c toolcap -l no-header -d 'Omit the warning header'
complete -c toolcap -l json -d 'Print one JSON object (the report) instead of the text'
complete -c toolcap -l live -d 'Print the head as it arrives; header lines go last'
complete -c toolcap -l strip-ansi -d 'Remove ANSI escape sequences (colours, cursor moves)'
complete -c toolcap -l collapse-cr -d 'Keep only the last frame of lines redrawn with \\r'
complete -c toolcap -l squeeze -d 'Replace 3+ identical lines in a row with one and a count'
complete -c toolcap -l utf8 -d 'Replace invalid UTF-8 with U+FFFD'
complete -c toolcap -l clean -d 'All of the above that agents want: --strip-ansi --collapse-cr --squeeze --fold --binary summary --utf8'
complete -c toolcap -l keep-errors -d 'Keep lines that look like errors (error, failed, panic, ...)'
complete -c toolcap -l pretty -d 'Print a shortened JSON document pretty (2 spaces)'
complete -c toolcap -l fold -d 'Fold runs of 3+ similar lines (equal but for numbers, ids, spacing)'
complete -c toolcap -l redact -d 'Replace credentials (tokens, keys, passwords) with [REDACTED:KIND]'
complete -c toolcap -l profiles -d 'List the profiles: what each matches, and its options'
complete -c toolcap -l project -d 'With --install-hook/--uninstall-hook: the project\'s .claude/settings.json'
complete -c toolcap -l list-profiles -d 'The values of --profile, one a line (for the shell completions)'
complete -c toolcap -l no-status -d 'Do not append the [exit status: N] line'
complete -c toolcap -l no-stdin -d 'Give the command /dev/null as stdin'
complete -c toolcap -l plain-env -d 'Ask the command for plain output (NO_COLOR=1, TERM=dumb, ...)'
complete -c toolcap -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolcap -s V -l version -d 'Print version'
