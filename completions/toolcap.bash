_toolcap() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="toolcap"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        toolcap)
            opts="-m -n -c -h -V --max --total --tokens --window --recent --window-ceiling --tokenizer --count-limit --chars --head --tail --lines --cut --spill --spill-dir --store --no-spill --list --show --grep --context --summary --prune --retain --retain-size --style --header --marker --no-header --json --live --strip-ansi --collapse-cr --squeeze --max-line --binary --utf8 --clean --keep --keep-error --keep-errors --keep-context --keep-max --format --json-limit --pretty --fold --fold-pattern --redact --redact-pattern --profile --profiles --hook --install-hook --uninstall-hook --settings --project --list-profiles --command --shell --stderr --stderr-max --timeout --kill-after --drain --no-status --no-stdin --plain-env --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --total)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --recent)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --window-ceiling)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokenizer)
                    COMPREPLY=($(compgen -W "approx o200k cl100k" -- "${cur}"))
                    return 0
                    ;;
                --count-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --head)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tail)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lines)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cut)
                    COMPREPLY=($(compgen -W "lines bytes" -- "${cur}"))
                    return 0
                    ;;
                --spill)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --spill-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --show)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summary)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retain)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retain-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --style)
                    COMPREPLY=($(compgen -W "toolcap codex verifiers" -- "${cur}"))
                    return 0
                    ;;
                --header)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --marker)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-line)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --binary)
                    COMPREPLY=($(compgen -W "text summary" -- "${cur}"))
                    return 0
                    ;;
                --keep)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-error)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "text json diff csv auto" -- "${cur}"))
                    return 0
                    ;;
                --json-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fold-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --redact-pattern)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profile)
                    COMPREPLY=($(compgen -W "$(toolcap --list-profiles 2>/dev/null)" -- "${cur}"))
                    return 0
                    ;;
                --hook)
                    COMPREPLY=($(compgen -W "claude-code" -- "${cur}"))
                    return 0
                    ;;
                --install-hook)
                    COMPREPLY=($(compgen -W "claude-code" -- "${cur}"))
                    return 0
                    ;;
                --uninstall-hook)
                    COMPREPLY=($(compgen -W "claude-code" -- "${cur}"))
                    return 0
                    ;;
                --settings)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shell)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stderr)
                    COMPREPLY=($(compgen -W "merged separate" -- "${cur}"))
                    return 0
                    ;;
                --stderr-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kill-after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --drain)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _toolcap -o nosort -o bashdefault -o default toolcap
else
    complete -F _toolcap -o bashdefault -o default toolcap
fi
