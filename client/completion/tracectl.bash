# SPDX-License-Identifier: LGPL-2.1-or-later
# bash completion for tracectl(1).
#
# Commands and options come from the CLI's own --help, which prints the
# option tables it parses with, so the completion never disagrees with the
# CLI. Session, channel and event names come from the service through
# --json=short; the calls pass --no-ask-password, so that completing never
# prompts for a password. After -H HOST they come from HOST's service.

# The values of "KEY":"VALUE" in JSON text, one a line.
_tracectl_json_values()
{
	local key=$1
	grep -o "\"$key\":\"[^\"]*\"" | sed -e "s/^\"$key\":\"//" -e 's/"$//'
}

_tracectl_query()
{
	"$_tracectl_program" ${_tracectl_host:+-H "$_tracectl_host"} --no-ask-password \
		--json=short "$@" 2>/dev/null
}

_tracectl_sessions()
{
	_tracectl_query list | _tracectl_json_values name
}

# The channels of the session given with -s, or of the current one.
_tracectl_channels()
{
	local session=$1 json
	if [[ -n $session ]]; then
		json=$(_tracectl_query list "$session")
	else
		json=$(_tracectl_query status)
	fi
	# A channel is the only object with a "domain" after its name.
	grep -o '"name":"[^"]*","domain"' <<<"$json" | sed -e 's/^"name":"//' -e 's/","domain"$//'
}

_tracectl_events()
{
	_tracectl_query list -u | _tracectl_json_values name | sort -u
}

# Event names hold a colon, which bash splits words at: complete the whole
# name, then keep only what follows the last colon already typed.
_tracectl_complete_event()
{
	local cur=$1 prev=$2 before=$3 full=$1 typed
	if [[ $cur == : ]]; then
		full="$prev:"
	elif [[ $prev == : ]]; then
		full="$before:$cur"
	fi
	COMPREPLY=($(compgen -W "$(_tracectl_events)" -- "$full"))
	if [[ $full == *:* && $COMP_WORDBREAKS == *:* ]]; then
		typed=${full%"${full##*:}"}
		COMPREPLY=("${COMPREPLY[@]#"$typed"}")
	fi
}

_tracectl_commands()
{
	"$_tracectl_program" --help 2>/dev/null |
		sed -n '/^Commands:/,/^$/{/^  [a-z]/{s/^  \([a-z-]*\).*/\1/;p}}'
}

# The options of a command, --opt= for those that take a value.
_tracectl_options()
{
	LC_ALL=C "$_tracectl_program" "$1" --help 2>/dev/null |
		sed -n 's/^  *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\)\(=\{0,1\}\).*/\2\3/p'
}

_tracectl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local _tracectl_program=${COMP_WORDS[0]} _tracectl_host=""
	local command="" session="" word i
	local -a candidates=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		# -H HOST, a global option: before the command only.
		if [[ -z $command ]]; then
			case $word in
			-H | --host) _tracectl_host=${COMP_WORDS[i + 1]}; ((i++)); continue ;;
			--host=*) _tracectl_host=${word#--host=}; continue ;;
			esac
		fi
		case $word in
		-s | --session) session=${COMP_WORDS[i + 1]} ;;
		--session=*) session=${word#--session=} ;;
		-*) ;;
		*) [[ -z $command ]] && command=$word ;;
		esac
	done

	if [[ -z $command ]]; then
		if [[ $cur == -* ]]; then
			candidates=(--help --version --verbose --json --json=short --json=pretty
				    --no-ask-password -H --host=)
		elif [[ $prev == -H || $prev == --host ]]; then
			mapfile -t candidates < <(compgen -A hostname -- "$cur")
		else
			mapfile -t candidates < <(_tracectl_commands)
		fi
		COMPREPLY=($(compgen -W "${candidates[*]}" -- "$cur"))
		return
	fi

	# The value of an option.
	case $prev in
	-s | --session)
		COMPREPLY=($(compgen -W "$(_tracectl_sessions)" -- "$cur"))
		return ;;
	-c | --channel)
		COMPREPLY=($(compgen -W "$(_tracectl_channels "$session")" -- "$cur"))
		return ;;
	-o | --output | -t | --trace)
		[[ $command == view ]] || { COMPREPLY=($(compgen -f -- "$cur")); return; } ;;
	--json)
		COMPREPLY=($(compgen -W "short pretty" -- "$cur"))
		return ;;
	esac
	case $cur in
	--session=*)
		COMPREPLY=($(compgen -P --session= -W "$(_tracectl_sessions)" -- "${cur#--session=}"))
		return ;;
	--channel=*)
		COMPREPLY=($(compgen -P --channel= -W "$(_tracectl_channels "$session")" -- "${cur#--channel=}"))
		return ;;
	--json=*)
		COMPREPLY=($(compgen -P --json= -W "short pretty" -- "${cur#--json=}"))
		return ;;
	-*)
		COMPREPLY=($(compgen -W "$(_tracectl_options "$command") --no-ask-password" -- "$cur"))
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return ;;
	esac

	# Arguments.
	case $command in
	start | stop | destroy | set-session | list | rotate | clear | view | export)
		COMPREPLY=($(compgen -W "$(_tracectl_sessions)" -- "$cur")) ;;
	enable-event | disable-event)
		_tracectl_complete_event "$cur" "$prev" "${COMP_WORDS[COMP_CWORD-2]}" ;;
	enable-channel | disable-channel)
		COMPREPLY=($(compgen -W "$(_tracectl_channels "$session")" -- "$cur")) ;;
	snapshot)
		COMPREPLY=($(compgen -W "record add-output list-output del-output" -- "$cur")) ;;
	esac
}

complete -F _tracectl tracectl
