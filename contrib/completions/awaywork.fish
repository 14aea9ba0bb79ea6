# fish completion for awaywork (installed in /usr/share/fish/vendor_completions.d/). The commands
# and flags are those of `awaywork --help`; tests/package/docs_test.sh checks that every command
# and flag is here.
set -l commands run replay units show check apply export doctor serve watch probe secret host plugin
complete -c awaywork -f
complete -c awaywork -l config -r -F -d 'config file'
complete -c awaywork -l json -d 'print JSON (the commands that have it)'
complete -c awaywork -l help -d 'print help and exit'
complete -c awaywork -l version -d 'print the version and exit'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a run -d 'run one unit now'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a replay -d "run a recorded unit's task again"
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a units -d 'list recorded units'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a show -d "show one unit's record"
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a check -d 'run the output check on a patch'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a apply -d 'publish a recorded, accepted unit'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a export -d "write a recorded unit's artifact to a new folder"
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'check every prerequisite'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a serve -d 'the local API and the dashboard'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a watch -d 'poll the forge and run admitted triggers'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a probe -d 'run the leak suite'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a secret -d 'keep credentials in the secret store'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a host -d 'prepare the machine awaywork runs on (as root)'
complete -c awaywork -n "not __fish_seen_subcommand_from $commands" -a plugin -d "approve, list, disable and enable the owner's plugins"
complete -c awaywork -n '__fish_seen_subcommand_from run' -l repo -r -a '(__fish_complete_directories)' -d 'repository: a repos: name or a path'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l issue -r -d 'take the task from a forge issue'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l pr -r -d 'follow up an awaywork pull request'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l prompt -r -d 'the task text'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l prompt-file -r -F -d 'read the task from a file'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l agent -r -d 'agent name from agents:'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l base -r -d 'base branch, tag or commit'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l instructions-from -r -d 'the agent instruction files from this ref'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l profile -r -d 'environment profile'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l unit-seconds -r -d 'time limit of the unit'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l no-progress-comment -d 'with --issue: post no progress comment'
complete -c awaywork -n '__fish_seen_subcommand_from replay' -l latest -d "start from the base branch's head"
complete -c awaywork -n '__fish_seen_subcommand_from check' -l bounds -r -F -d 'bounds file (YAML)'
complete -c awaywork -n '__fish_seen_subcommand_from check' -l patch -r -F -d 'the patch (git diff output)'
complete -c awaywork -n '__fish_seen_subcommand_from check' -l requests -r -F -d 'requests.jsonl'
complete -c awaywork -n '__fish_seen_subcommand_from doctor' -l print-setup -d 'print the whole setup to paste as root'
complete -c awaywork -n '__fish_seen_subcommand_from serve' -l listen -r -d 'ADDRESS:PORT, loopback only'
complete -c awaywork -n '__fish_seen_subcommand_from serve' -l listen-anywhere -d 'allow a non-loopback --listen address'
complete -c awaywork -n '__fish_seen_subcommand_from watch' -l once -d 'one pass, then exit'
complete -c awaywork -n '__fish_seen_subcommand_from watch' -l log -r -F -d 'append the JSON-lines event log here'
complete -c awaywork -n "__fish_seen_subcommand_from secret; and not __fish_seen_subcommand_from set list rm" -a 'set list rm'
complete -c awaywork -n "__fish_seen_subcommand_from host; and not __fish_seen_subcommand_from lock" -a lock -d 'harden a hosted runner or an image'
complete -c awaywork -n '__fish_seen_subcommand_from lock' -l runner -r -d 'the user awaywork runs as'
complete -c awaywork -n '__fish_seen_subcommand_from lock' -l worker -r -d 'the worker user'
complete -c awaywork -n '__fish_seen_subcommand_from lock' -l for-image -d 'building an image'
complete -c awaywork -n '__fish_seen_subcommand_from lock' -l this-machine -d 'lock a machine that is not a hosted runner'
complete -c awaywork -n "__fish_seen_subcommand_from plugin; and not __fish_seen_subcommand_from approve list disable enable" -a 'approve list disable enable'
complete -c awaywork -n '__fish_seen_subcommand_from run' -l artifact -r -F -d 'check, do not publish; write the artifact here'
complete -c awaywork -n '__fish_seen_subcommand_from check' -l from -r -F -d 'an artifact folder, checked again'
complete -c awaywork -n '__fish_seen_subcommand_from apply' -l from -r -F -d 'an artifact folder: checked again, then published'
