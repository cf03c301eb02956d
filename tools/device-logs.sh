# device-logs.sh - sourced by the tools/device-*.sh scripts (run from the project root).
# device_logs ARCHIVE [EXCLUDE_GLOB]: sets $logs_dir to a fresh scratch folder for the call's logs
# and reports and, when the script exits, packs it (less the files matching EXCLUDE_GLOB) into
# ARCHIVE in $OUT (the folder the device tool brings back) or ./gpu-logs, so one archive comes
# back instead of many files.
device_logs() {
    logs_out=${OUT:-gpu-logs}
    mkdir -p "$logs_out"
    logs_dir=$(mktemp -d)
    logs_archive=$1
    logs_exclude=${2:-}
    trap 'tar czf "$logs_out/$logs_archive" -C "$logs_dir" ${logs_exclude:+--exclude="$logs_exclude"} . 2>/dev/null' EXIT
}
