# SPDX-License-Identifier: GPL-2.0
# bash completion for mpdt(8), the netlink CLI of MPDT.      -*- shell-script -*-
#
# Completes the global options, objects, commands, parameter names (from
# the CLI's own table: "mpdt param help"), algorithm names (from the
# module, "mpdt algo show", or the list below when it is not loaded),
# network namespaces for -n, and the arguments of stats, conn and monitor.
# Words may be abbreviated as the CLI allows: "mpdt p s ack-b<TAB>".
# tools/mpdt/spec_check.py checks the lists below against the code.

_mpdt_objects=(param stats conn sock algo monitor help)
_mpdt_options=(-n --netns -j --json -p --pretty -s --stats -t --timestamp
	-V --version -h --help)
# When the module is not loaded: the registry of net/mpdt/algo.c.
_mpdt_lb_algos=(ecmp oblivious bitmap reps prime paralet)
_mpdt_cc_algos=(fixed strack smartt mcc)

# _mpdt_resolve WORD CANDIDATES...: the candidate WORD is, or the only one
# it is a prefix of (as the CLI matches words); nothing if none or several.
_mpdt_resolve()
{
	local word=$1 c found='' n=0
	shift
	for c in "$@"; do
		if [[ $c == "$word" ]]; then
			echo "$c"
			return
		fi
		if [[ -n $word && $c == "$word"* ]]; then
			found=$c
			n=$((n + 1))
		fi
	done
	((n == 1)) && echo "$found"
}

# _mpdt_param_names MPDT: the names between "NAME := {" and "}".
_mpdt_param_names()
{
	"$1" param help 2>/dev/null | awk '
		/^NAME := \{/ { on = 1 }
		on { for (i = 1; i <= NF; i++)
			if ($i ~ /^[a-z][a-z0-9-]*$/) print $i }
		on && /\}/ { exit }'
}

# _mpdt_algos MPDT KIND [NETNS]: the module's algorithms of KIND (lb, cc).
_mpdt_algos()
{
	local names kind name _
	names=$("$1" ${3:+-n "$3"} algo show 2>/dev/null |
		while read -r kind name _; do
			[[ $kind == "$2" ]] && echo "$name"
		done)
	if [[ -z $names && $2 == lb ]]; then
		names=${_mpdt_lb_algos[*]}
	elif [[ -z $names ]]; then
		names=${_mpdt_cc_algos[*]}
	fi
	echo "$names"
}

_mpdt_netns()
{
	local ns _
	if command -v ip >/dev/null 2>&1; then
		ip netns list 2>/dev/null | while read -r ns _; do echo "$ns"; done
	elif [[ -d /run/netns ]]; then
		(cd /run/netns && printf '%s\n' *)
	fi
}

_mpdt()
{
	local cur prev mpdt=${COMP_WORDS[0]} netns='' i word
	local obj='' oidx=0 cmd='' cidx=0 stop=0
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# The global options and the object, then the command.
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [[ -z $obj ]]; then
			case $word in
			-n | --netns)
				i=$((i + 1))
				netns=${COMP_WORDS[i]}
				;;
			--netns=*)
				netns=${word#--netns=}
				;;
			-V | --version | -h | --help)
				stop=1
				;;
			-*) ;;
			*)
				obj=$(_mpdt_resolve "$word" "${_mpdt_objects[@]}")
				oidx=$i
				[[ -n $obj ]] || stop=1
				;;
			esac
		fi
	done
	((stop)) && return 0

	if [[ -z $obj ]]; then
		case $prev in
		-n | --netns)
			mapfile -t COMPREPLY < <(compgen -W "$(_mpdt_netns)" -- "$cur")
			return 0
			;;
		esac
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "${_mpdt_options[*]}" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "${_mpdt_objects[*]}" -- "$cur")
		fi
		return 0
	fi

	# The command: the first word after the object that is not an option.
	local -a verbs
	case $obj in
	param) verbs=(show set help) ;;
	monitor) verbs=(help) ;;
	help) verbs=("${_mpdt_objects[@]}") ;;
	*) verbs=(show help) ;;
	esac
	for ((i = oidx + 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		[[ $word == -* ]] && continue
		cmd=$(_mpdt_resolve "$word" "${verbs[@]}")
		cidx=$i
		break
	done

	if ((!cidx)); then
		case $obj in
		stats) verbs+=(-s --stats) ;;
		monitor) verbs+=(-t --timestamp) ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W "${verbs[*]}" -- "$cur")
		return 0
	fi

	case $obj in
	param)
		local -a names
		local kind
		mapfile -t names < <(_mpdt_param_names "$mpdt")
		case $cmd in
		show)
			mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
			;;
		set)
			# NAME VALUE pairs: names at odd distances from "set".
			if (((COMP_CWORD - cidx) % 2)); then
				mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
			else
				kind=$(_mpdt_resolve "$prev" "${names[@]}")
				[[ $kind == lb || $kind == cc ]] &&
					mapfile -t COMPREPLY < <(compgen -W \
						"$(_mpdt_algos "$mpdt" "$kind" "$netns")" -- "$cur")
			fi
			;;
		esac
		;;
	stats)
		[[ $cmd == show ]] &&
			mapfile -t COMPREPLY < <(compgen -W "-s --stats" -- "$cur")
		;;
	conn)
		[[ $cmd == show && $COMP_CWORD == $((cidx + 1)) ]] &&
			mapfile -t COMPREPLY < <(compgen -W "peer" -- "$cur")
		;;
	esac
	return 0
}

complete -F _mpdt mpdt
