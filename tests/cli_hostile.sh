#!/bin/bash
# cli_hostile.sh - hostile inputs and outputs at the satfeat CLI, one case per ctest:
#   cli_hostile.sh CASE SATFEAT DATA_DIR WORK_DIR
# Exit 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE). Device nodes are only ever made inside
# a private mount namespace (private_dev.sh): no case touches the machine's real /dev. Every
# run that could hang on a FIFO is bounded by `timeout`.
set -u
case_name=$1 B=$2 DATA=$3 W=$4/$1
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
IMG=$DATA/scene.png DUNE=$DATA/dune
T="timeout -k 5 30"
fail() { echo "FAIL ($case_name): $*"; exit 1; }
# run EXPECTED_RC CMD...: runs with stdout in out.txt, stderr in err.txt; checks the exit status
run() {
  local want=$1; shift
  $T "$@" >out.txt 2>err.txt; local rc=$?
  cat err.txt
  [ "$rc" = "$want" ] || fail "exit $rc, expected $want: $*"
}
expect_err() { grep -q -- "$1" err.txt || fail "stderr lacks '$1'"; }
no_temp() { local left; left=$(ls -a "${1:-.}" | grep -E '\.tmp$|\.tmp\.' || true)
  [ -z "$left" ] || fail "temporary files left: $left"; }
in_private_dev() { "$HERE/private_dev.sh" "$@"; }

case $case_name in
out_device_full)   # -o /dev/full: the write error is reported, the device stays a device
  in_private_dev sh -c "$T $B detect $IMG -q -o /dev/full 2>err.txt; echo \$? > rc.txt;
    [ -c /dev/full ] && echo chr > kind.txt; $T $B track $DUNE/frame001.png $DUNE/frame002.png \
    --backend cpu -q -o /dev/full 2>>err.txt; echo \$? >> rc.txt; [ -c /dev/full ] && echo chr >> kind.txt"
  r=$?; [ $r = 77 ] && exit 77; cat err.txt
  [ "$(cat rc.txt)" = "$(printf '1\n1')" ] || fail "exit statuses $(cat rc.txt | tr '\n' ' '), expected 1 1"
  [ "$(cat kind.txt 2>/dev/null)" = "$(printf 'chr\nchr')" ] || fail "/dev/full is no longer a character device"
  expect_err "cannot write /dev/full" ;;
out_device_null)   # -o /dev/null, track -o /dev/null, draw -o /dev/null: exit 0, still devices
  in_private_dev sh -c "$T $B detect $IMG -q -o /dev/null; echo \$? > rc.txt;
    $T $B track $DUNE/frame001.png $DUNE/frame002.png --backend cpu -q -o /dev/null; echo \$? >> rc.txt;
    $T $B draw $IMG -q -o /dev/null; echo \$? >> rc.txt;
    [ -c /dev/null ] && echo chr > kind.txt; ls -a /dev > devls.txt"
  r=$?; [ $r = 77 ] && exit 77
  [ "$(cat rc.txt)" = "$(printf '0\n0\n0')" ] || fail "exit statuses $(tr '\n' ' ' < rc.txt), expected 0 0 0"
  [ "$(cat kind.txt 2>/dev/null)" = chr ] || fail "/dev/null is no longer a character device"
  no_temp . ; grep -q tmp devls.txt && fail "temporary files left in /dev: $(cat devls.txt)"; true ;;
out_dev_stdout)    # -o /dev/stdout (a link to /proc/self/fd/1): written in place, link kept, >> appends
  in_private_dev sh -c "ln -s /proc/self/fd/1 /dev/stdout; $T $B detect $IMG -q -o /dev/stdout > got.txt;
    echo \$? > rc.txt; echo first > app.txt; $T $B detect $IMG -q -o /dev/stdout >> app.txt;
    echo \$? >> rc.txt; [ -L /dev/stdout ] && echo link > kind.txt; ls -a /dev > devls.txt"
  r=$?; [ $r = 77 ] && exit 77
  [ "$(cat rc.txt)" = "$(printf '0\n0')" ] || fail "exit statuses $(tr '\n' ' ' < rc.txt)"
  [ "$(cat kind.txt 2>/dev/null)" = link ] || fail "/dev/stdout is no longer a link"
  [ "$(head -1 app.txt)" = first ] || fail "-o /dev/stdout >> FILE did not append"
  grep -q '^# frame 1 640x480' app.txt || fail "-o /dev/stdout >> FILE wrote nothing"
  grep -q '^# frame 1 640x480' got.txt || fail "the keypoints did not reach stdout"
  grep -q tmp devls.txt && fail "temporary files left in /dev"; true ;;
out_fifo)          # -o FIFO: written in place to the reader; the FIFO stays a FIFO
  mkfifo pipe; ($T cat pipe > got.txt) & reader=$!
  run 0 $B detect $IMG -q -o pipe
  wait $reader
  [ -p pipe ] || fail "pipe is no longer a FIFO"
  grep -q '^# frame 1 640x480' got.txt || fail "the reader got no keypoints"; no_temp ;;
out_symlink)       # -o LINK: the link stays, its target gets the new contents
  mkdir t; echo old > t/real.txt; ln -s t/real.txt link.txt
  run 0 $B detect $IMG -q -o link.txt
  [ -L link.txt ] || fail "link.txt is no longer a symbolic link"
  grep -q '^# frame 1 640x480' t/real.txt || fail "the target was not written"; no_temp; no_temp t ;;
out_mode_kept)     # an existing file's mode (0640) is kept, for text and PNG outputs
  echo old > kp.txt; chmod 0640 kp.txt; echo old > pic.png; chmod 0640 pic.png
  run 0 $B detect $IMG -q -o kp.txt
  run 0 $B draw $IMG -q -o pic.png
  [ "$(stat -c %a kp.txt)" = 640 ] || fail "kp.txt mode $(stat -c %a kp.txt), expected 640"
  [ "$(stat -c %a pic.png)" = 640 ] || fail "pic.png mode $(stat -c %a pic.png), expected 640" ;;
out_mode_new)      # a new file gets 0666 & ~umask
  (umask 022; $T $B detect $IMG -q -o a.txt) || fail "detect failed"
  (umask 077; $T $B detect $IMG -q -o b.txt) || fail "detect failed"
  (umask 022; $T $B detect $DUNE/frame001.png $DUNE/frame002.png -q --out-dir d) || fail "detect --out-dir failed"
  [ "$(stat -c %a a.txt)" = 644 ] || fail "umask 022: mode $(stat -c %a a.txt), expected 644"
  [ "$(stat -c %a b.txt)" = 600 ] || fail "umask 077: mode $(stat -c %a b.txt), expected 600"
  [ "$(stat -c %a d/frame001.txt)" = 644 ] || fail "--out-dir file mode $(stat -c %a d/frame001.txt)" ;;
out_checks_first)  # -o DIR, --out-dir FILE, --draw FILE, a missing directory: refused before any frame
  mkdir adir; echo x > afile
  run 1 $B detect $DUNE -v --backend cpu -o adir; expect_err "is a directory"
  grep -q "frame 1" err.txt && fail "detect -o DIR worked before failing"
  run 1 $B detect $DUNE -v --backend cpu --out-dir afile; expect_err "not a directory"
  grep -q "frame 1" err.txt && fail "detect --out-dir FILE worked before failing"
  run 1 $B track $DUNE/frame001.png $DUNE/frame002.png -v --backend cpu --draw afile
  expect_err "not a directory"; grep -q "frame 1" err.txt && fail "track --draw FILE worked first"
  run 1 $B draw $IMG -o missing/pic.png; expect_err "missing does not exist"
  grep -q "keypoints of" err.txt && fail "draw worked before failing"
  [ -e missing ] && fail "missing was created"; no_temp ;;
out_sigterm)       # SIGTERM mid-run removes the temporary file and keeps the old output
  echo old > tracks.txt
  for i in $(seq 1 20); do ls "$DUNE"/frame0*.png; done > many.txt
  $B track many.txt --backend cpu --threads 1 -q -o tracks.txt 2>err.txt & pid=$!
  for i in $(seq 1 400); do ls | grep -q '^tracks\.txt\..*tmp' && break; sleep 0.05; done
  ls | grep -q '^tracks\.txt\..*tmp' || { kill $pid; fail "no temporary file appeared"; }
  kill -TERM $pid; wait $pid; rc=$?
  [ $rc = 143 ] || fail "exit $rc, expected 143 (killed by SIGTERM; too fast a run?)"
  no_temp; [ "$(cat tracks.txt)" = old ] || fail "tracks.txt changed" ;;
fifo_list_file)    # a FIFO as the list file: refused at once
  mkfifo list.txt
  run 1 $B detect list.txt -q; expect_err "is a FIFO, not a regular file" ;;
fifo_list_entry)   # a FIFO named in a list: refused; --keep-going skips it with a message
  mkfifo bad.png; printf '%s\nbad.png\n%s\n' "$DUNE/frame001.png" "$DUNE/frame002.png" > l.txt
  run 1 $B detect l.txt -q --backend cpu; expect_err "FIFO"
  run 1 $B detect l.txt --keep-going --backend cpu; expect_err "FIFO"; expect_err "skipped"
  [ "$(grep -c '^# frame' out.txt)" = 2 ] || fail "--keep-going did not detect the other frames"
  run 1 $B track l.txt --keep-going --backend cpu; expect_err "FIFO" ;;
fifo_dir_member)   # a FIFO in a frame directory: skipped with a warning, never opened
  mkdir d; cp "$DUNE/frame001.png" "$DUNE/frame002.png" d/; mkfifo d/frame0015.png
  run 0 $B detect d --backend cpu; expect_err "skipping frame: d/frame0015.png: is a FIFO"
  [ "$(grep -c '^# frame' out.txt)" = 2 ] || fail "the regular frames were not detected"
  run 0 $B detect d --keep-going --backend cpu; expect_err "skipping frame: d/frame0015.png: is a FIFO" ;;
fifo_homography)   # a FIFO as -H / eval's H: refused at once
  mkfifo h
  run 1 $B match $IMG $IMG -H h --backend cpu; expect_err "FIFO"
  run 1 $B eval $IMG $IMG h --descriptor none; expect_err "FIFO" ;;
h_singular)        # a singular H: refused before any match is printed
  printf '1 2 3\n2 4 6\n0 0 1\n' > h
  run 1 $B match $IMG $IMG -H h --backend cpu; expect_err "singular"
  [ -s out.txt ] && fail "matches were printed before the failure"; true ;;
h_zero)            # an all-zero H: refused by draw --matches, match and eval
  printf '0 0 0\n0 0 0\n0 0 0\n' > h
  run 1 $B draw $IMG $IMG --matches -H h -o m.png --backend cpu; expect_err "singular"
  [ -e m.png ] && fail "draw wrote a picture"
  run 1 $B eval $IMG $IMG h --descriptor none; expect_err "singular" ;;
h_behind)          # every corner of image 1 behind the camera: refused
  printf '1 0 0\n0 1 0\n0 0 -1\n' > h
  run 1 $B eval $IMG $IMG h --descriptor none; expect_err "behind the camera"
  run 1 $B match $IMG $IMG -H h --backend cpu; expect_err "behind the camera"
  printf '1 0 0\n0 1 0\n0.001 0 0.2\n' > h2   # the horizon x = -200 crosses no corner: fine
  run 0 $B eval $IMG $IMG h2 --descriptor none
  printf '1 0 0\n0 1 0\n-0.01 0 1\n' > h3     # the horizon x = 100 cuts image 1
  run 1 $B eval $IMG $IMG h3 --descriptor none; expect_err "behind the camera" ;;
name_newline)      # a name with a newline never starts a line in text or CSV
  name=$(printf 'x\nINJECT 1 2 3 4 5 6 7.png'); cp "$IMG" "$name"
  run 0 $B detect "$name" --format text --max-keypoints 3
  grep -q '^INJECT' out.txt && fail "text: the name started a line"
  grep -q 'x\\nINJECT' out.txt || fail "text: the name is not escaped as x\\nINJECT"
  run 0 $B detect "$name" --format csv --max-keypoints 3
  grep -q '^INJECT' out.txt && fail "csv: the name started a line"
  [ "$(wc -l < out.txt)" = 4 ] || fail "csv: $(wc -l < out.txt) lines, expected 4"
  name2=$(printf 'b\\s\tq.png'); cp "$IMG" "$name2"
  run 0 $B detect "$name2" --format text --max-keypoints 1
  grep -q 'b\\\\s\\tq.png$' out.txt || fail "text: backslash and tab not escaped" ;;
name_json_utf8)    # a non-UTF-8 name gives valid JSON that gives the bytes back
  name=$(printf 'caf\xe9-\xc3\xa9.png'); cp "$IMG" "$name"
  run 0 $B detect "$name" --format json --max-keypoints 2
  python3 - "$name" <<'EOF' || fail "the JSON line is not valid UTF-8 JSON naming the file"
import json, os, sys
raw = open("out.txt", "rb").read()
obj = json.loads(raw.decode("utf-8"))          # strict UTF-8
want = os.fsencode(sys.argv[1])
got = obj["image"].encode("utf-8", "surrogateescape")
assert got == want, (got, want)
EOF
  ;;
list_quoted)       # quoted list names keep their spaces; unquoted lines are still trimmed
  cp "$IMG" " spaced .png"; cp "$IMG" plain.png
  printf '# a comment\n" spaced .png"\n   plain.png   \n"\\x23hash.png"\n' > l.txt
  cp "$IMG" "#hash.png"
  run 0 $B detect l.txt --max-keypoints 1
  [ "$(grep -c '^# frame' out.txt)" = 3 ] || fail "expected 3 frames"
  grep -q 'keypoints: ./ spaced .png$\|keypoints: .* spaced .png$' out.txt || fail "the spaced name was not kept"
  printf '"unterminated.png\n' > bad.txt
  run 1 $B detect bad.txt; expect_err "bad.txt:1: no closing quote"
  printf '"a\\qb.png"\n' > bad2.txt
  run 1 $B detect bad2.txt; expect_err "bad2.txt:1: unknown escape" ;;
memory_limit)      # --memory-limit: a too-small limit refuses the image with a message
  run 1 $B detect $IMG --memory-limit 1K; expect_err "limit"
  run 0 $B detect $IMG --memory-limit 64M --max-keypoints 1
  run 2 $B detect $IMG --memory-limit 12X; expect_err "memory-limit"
  run 1 $B sat $IMG --backend cpu --memory-limit 1K; expect_err "limit"
  run 1 $B track $DUNE/frame001.png --backend cpu --memory-limit 1K; expect_err "limit"
  run 1 $B eval $IMG $IMG $DUNE/H1to001p --memory-limit 1K --descriptor none; expect_err "limit" ;;
ar_outputs)        # satfeat ar: -o DIR / --draw FILE refused first, a FIFO target refused at once,
                   # -o LINK and -o FIFO written through, -o /dev/full reported (private /dev)
  AR="$B ar --target $DUNE/frame001.png --target-width 0.3 --camera 554,554,319.5,239.5 --backend cpu -q"
  mkdir adir; echo x > afile
  run 1 $AR $DUNE/frame001.png -o adir; expect_err "is a directory"
  run 1 $AR $DUNE/frame001.png --draw afile; expect_err "not a directory"
  [ -s out.txt ] && fail "ar wrote results before failing on --draw"
  mkfifo t.png
  run 1 $B ar --target t.png --target-width 0.3 --camera 554,554,319.5,239.5 $DUNE/frame001.png
  expect_err "FIFO"
  mkdir t; echo old > t/real.txt; ln -s t/real.txt link.txt
  run 0 $AR $DUNE/frame001.png $DUNE/frame002.png -o link.txt
  [ -L link.txt ] || fail "link.txt is no longer a symbolic link"
  grep -q '^2 0 tracked ' t/real.txt || fail "the link's target did not get the poses"
  mkfifo pipe; ($T cat pipe > got.txt) & reader=$!
  run 0 $AR $DUNE/frame001.png -o pipe
  wait $reader; [ -p pipe ] || fail "pipe is no longer a FIFO"
  grep -q '^1 0 found ' got.txt || fail "the reader got no poses"; no_temp; no_temp t
  in_private_dev sh -c "$T $AR $DUNE/frame001.png -o /dev/full 2>err.txt; echo \$? > rc.txt;
    [ -c /dev/full ] && echo chr > kind.txt"
  r=$?; [ $r = 77 ] && exit 77; cat err.txt
  [ "$(cat rc.txt)" = 1 ] || fail "-o /dev/full: exit $(cat rc.txt), expected 1"
  [ "$(cat kind.txt 2>/dev/null)" = chr ] || fail "/dev/full is no longer a character device"
  expect_err "cannot write /dev/full" ;;
*) echo "unknown case $case_name"; exit 1 ;;
esac
exit 0
