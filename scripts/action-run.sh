#!/usr/bin/env bash
# The GitHub Action's run step (action.yml): runs `gallivant $GALLIVANT_COMMAND`,
# split into words (no shell evaluation of the input), adds a line with the
# version and exit status to the job summary, and exits with gallivant's
# status.
set -uo pipefail
read -r -a args <<<"${GALLIVANT_COMMAND:-reconcile}"
if [ -z "${GALLIVANT_APP_ID:-}" ]; then
	unset GALLIVANT_APP_ID GALLIVANT_APP_PRIVATE_KEY
fi
# `token: ${{ secrets.GALLIVANT_TOKEN }}` with no such secret passes an
# empty token, not the input's default: use the job's token then.
export GITHUB_TOKEN="${GITHUB_TOKEN:-${GALLIVANT_DEFAULT_TOKEN:-}}"
unset GALLIVANT_DEFAULT_TOKEN
# A credential in a URL of the command (--control https://user:TOKEN@…)
# is masked in the job's log and left out of the summary.
for a in "${args[@]}"; do
	if [[ "$a" =~ ://([^/@[:space:]]+)@ ]]; then
		userinfo=${BASH_REMATCH[1]}
		echo "::add-mask::${userinfo#*:}"
	fi
done
gallivant "${args[@]}"
status=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	shown=$(printf '%s' "${args[*]}" | sed -E 's#://[^/@[:space:]]+@#://#g')
	printf '\n<sub>gallivant %s · `gallivant %s` exited %d</sub>\n' "${GALLIVANT_INSTALLED:-?}" "$shown" "$status" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
