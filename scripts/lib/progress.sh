# Stages for the project's scripts, sourced by them: one line on stderr as each stage
# starts, the stage's own output kept in a log under .build/logs/, and, when a stage
# fails, which one, its log's path and its last lines. ROUNDUP_SCRIPT_VERBOSE=1 shows
# every line as it comes, as well as keeping it.
#   stages N                     how many stages the script has
#   stage NAME "what" CMD…        runs CMD… as the next stage, its output in .build/logs/NAME.log
#   stage_log NAME               the path of that log
#   step "what"                  a quick step whose commands run in the script itself
#   say "text"                   one line of the script's own
# A script may define stage_failure_hint LOG, called before a failed stage's log is shown.

progress_name="scripts/$(basename "$0")"
progress_total=0
progress_step=0
progress_logs="$(pwd)/.build/logs"
mkdir -p "$progress_logs"

say() { echo "$progress_name: $*" >&2; }
stages() { progress_total="$1"; }
stage_log() { echo "$progress_logs/$1.log"; }
# A step with no log of its own: its commands' failure is named by the trap below.
step() { progress_step=$((progress_step + 1)); say "[$progress_step/$progress_total] $*"; }
# Any other command that fails ends the script (set -e) naming the step it was in.
set -o errtrace
# (Said once, by the script's own shell, not again by a subshell it ran the command in.)
trap '[ "$BASH_SUBSHELL" -ne 0 ] || say "FAILED at step $progress_step of $progress_total: \`$BASH_COMMAND\` (line $LINENO of $0)"' ERR

stage() {
  local name="$1" what="$2" log status
  shift 2
  log="$(stage_log "$name")"
  progress_step=$((progress_step + 1))
  say "[$progress_step/$progress_total] $what"
  if [ "${ROUNDUP_SCRIPT_VERBOSE:-}" = 1 ]; then
    if "$@" 2>&1 | tee "$log" >&2; then status=0; else status="${PIPESTATUS[0]}"; fi
  else
    if "$@" >"$log" 2>&1; then status=0; else status=$?; fi
  fi
  if [ "$status" -ne 0 ]; then
    # A script may say first what matters in the log (the failing tests, say).
    if declare -F stage_failure_hint >/dev/null; then stage_failure_hint "$log"; fi
    stage_failed "$what" "$log" "$status"
  fi
}

# The failure of stage "what", whose log is $2: named, with the log's path and its end
# (all of it under CI, where the file is gone once the machine is).
stage_failed() {
  local lines=40
  [ "${CI:-}" = true ] && lines=400
  say "FAILED at step $progress_step of $progress_total, $1 (exit $3)"
  say "the whole log: $2; its last $lines lines:"
  tail -n "$lines" "$2" >&2
  say "FAILED at step $progress_step of $progress_total, $1: see $2"
  exit "$3"
}
