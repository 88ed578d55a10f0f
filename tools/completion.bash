# bash completion for tracebench: commands, options, option values that are files, history's
# subcommands, plugin names (`list NAME`) and an installed tree's shipped scenarios (`run`).
# The candidates come from the binary itself (`tracebench __complete WORD... CUR`,
# harness/cli/cmd-complete.c), so they follow its
# --help texts and plugin tables. Installed to $(PREFIX)/share/bash-completion/completions.
_tracebench() {
	local cur=${COMP_WORDS[COMP_CWORD]} line files=0 bin=${COMP_WORDS[0]}
	local -a cands=()

	COMPREPLY=()
	# COMP_WORDS[0] as typed (./tracebench, a path); ~ is not expanded in it.
	[[ $bin == "~"* ]] && bin=${bin/#\~/$HOME}
	while IFS= read -r line; do
		if [[ $line == -f ]]; then files=1; else cands+=("$line"); fi
	done < <("$bin" __complete "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)
	COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
	if ((files)); then
		compopt -o filenames 2>/dev/null
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
	return 0
}
complete -F _tracebench tracebench
