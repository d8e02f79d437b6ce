complete -c toolcap -s m -l max -d 'Budget for the kept output (head + tail) [default: 10k]' -r
complete -c toolcap -l tokens -d 'Budget in tokens: --max = 4 * N bytes' -r
complete -c toolcap -l head -d 'Bytes kept from the start (default: half of --max)' -r
complete -c toolcap -l tail -d 'Bytes kept from the end (default: the rest of --max)' -r
complete -c toolcap -s n -l lines -d 'Also cap by lines: first N/2 and last N - N/2 lines' -r
complete -c toolcap -l cut -d 'Where cuts land: lines (near a line boundary) or bytes' -r -f -a "lines\t''
bytes\t''"
complete -c toolcap -l spill -d 'Save every input byte to FILE (created 0600 or truncated)' -r -F
complete -c toolcap -l spill-dir -d 'Save the full input in a new file in DIR; kept only if truncated' -r -F
complete -c toolcap -s c -l command -d 'Run STRING with /bin/sh -c (or --shell)' -r
complete -c toolcap -l shell -d 'Shell for -c [default: /bin/sh]' -r
complete -c toolcap -l stderr -d 'Child\'s stderr: merged into stdout, or capped separately' -r -f -a "merged\t''
separate\t''"
complete -c toolcap -l stderr-max -d 'Budget for the separate stderr [default: --max]' -r
complete -c toolcap -l timeout -d 'Stop the command after DURATION (exit 124)' -r
complete -c toolcap -l kill-after -d 'Wait this long after SIGTERM before SIGKILL [default: 5s]' -r
complete -c toolcap -l drain -d 'Read at most this long after the command exits [default: 2s]' -r
complete -c toolcap -l no-spill -d 'Do not spill, even when TOOLCAP_SPILL_DIR is set'
complete -c toolcap -l no-header -d 'Omit the warning header'
complete -c toolcap -l live -d 'Print the head as it arrives; header lines go last'
complete -c toolcap -l no-status -d 'Do not append the [exit status: N] line'
complete -c toolcap -l no-stdin -d 'Give the command /dev/null as stdin'
complete -c toolcap -l plain-env -d 'Ask the command for plain output (NO_COLOR=1, TERM=dumb, ...)'
complete -c toolcap -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolcap -s V -l version -d 'Print version'
