# bash completion for awaywork (installed as /usr/share/bash-completion/completions/awaywork).
# The commands and flags are those of `awaywork --help`; tests/package/docs_test.sh checks that
# every command and flag is here.
_awaywork() {
  local cur prev cmd="" sub="" i
  _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
  local commands="run replay units show check apply export doctor serve watch probe secret host plugin"
  local global="--config --json --help --version"
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --config) ((i++)) ;;
      -*) ;;
      *) if [ -z "$cmd" ]; then cmd=${COMP_WORDS[i]}; elif { [ "$cmd" = secret ] || [ "$cmd" = host ] || [ "$cmd" = plugin ]; } && [ -z "$sub" ]; then sub=${COMP_WORDS[i]}; fi ;;
    esac
  done
  case $prev in
    --config | --prompt-file | --bounds | --patch | --requests | --log | --from | --artifact)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --repo) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --issue | --pr | --prompt | --agent | --base | --instructions-from | --profile | --unit-seconds | --listen | --runner | --worker) return ;;
  esac
  local flags
  case $cmd in
    "") COMPREPLY=($(compgen -W "$commands $global" -- "$cur")); return ;;
    run) flags="--repo --issue --pr --prompt --prompt-file --agent --base --instructions-from --profile --unit-seconds --no-progress-comment --artifact --json" ;;
    replay) flags="--latest --json" ;;
    units | show | probe | export) flags="--json" ;;
    apply) flags="--from --json" ;;
    check) flags="--bounds --patch --from --requests --json" ;;
    doctor) flags="--print-setup --json" ;;
    serve) flags="--listen --listen-anywhere --json" ;;
    watch) flags="--once --log" ;;
    secret)
      if [ -z "$sub" ]; then COMPREPLY=($(compgen -W "set list rm" -- "$cur")); return; fi
      [ "$sub" = list ] && flags="--json" ;;
    host)
      if [ -z "$sub" ]; then COMPREPLY=($(compgen -W "lock" -- "$cur")); return; fi
      flags="--runner --worker --for-image --this-machine --json" ;;
    plugin)
      if [ -z "$sub" ]; then COMPREPLY=($(compgen -W "approve list disable enable" -- "$cur")); return; fi
      flags="--json" ;;
  esac
  COMPREPLY=($(compgen -W "$flags --config --help" -- "$cur"))
}
complete -F _awaywork awaywork
