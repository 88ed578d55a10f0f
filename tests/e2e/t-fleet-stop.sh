#!/bin/bash
# fleet can be stopped (issue 27, item 4): with an ansible-playbook that hangs and ignores
# SIGINT and SIGTERM (a fake one, first in PATH), a Ctrl-C starts the abort and a second one ends
# fleet within 10 s, leaving no ansible-playbook behind; an inventory that is a FIFO (or a link,
# or a directory) is refused at once with exit 2 instead of blocking.
. "$(dirname "$0")/lib.sh"
D=$TB_ROOT/tests/data/fleet
mkdir -p "$TMP/bin"
mark=tb-fleet-hang-$$
cat >"$TMP/bin/ansible-playbook" <<EOF
#!/bin/bash
# $mark
trap '' INT TERM
while :; do sleep 0.2; done
EOF
chmod +x "$TMP/bin/ansible-playbook"
printf 'ctl ansible_connection=local\n' >"$TMP/inventory"

# Bad inventories: refused before anything runs, without blocking.
mkfifo "$TMP/fifo"
expect_exit 2 timeout -s KILL 10 env PATH="$TMP/bin:$PATH" "$TB" fleet "$D/tiny.ini" -i "$TMP/fifo" -o "$TMP/f0"
grep -q 'fifo: cannot read the inventory: not a regular file' "$TMP/err" || fail "FIFO inventory: no reason"
ln -s "$TMP/inventory" "$TMP/inv-link"
expect_exit 2 env PATH="$TMP/bin:$PATH" "$TB" fleet "$D/tiny.ini" -i "$TMP/inv-link" -o "$TMP/f0"
expect_exit 2 env PATH="$TMP/bin:$PATH" "$TB" fleet "$D/tiny.ini" -i "$TMP" -o "$TMP/f0"

# A hanging play: Ctrl-C, then Ctrl-C again; fleet must end within 10 s of the second.
PATH="$TMP/bin:$PATH" "$TB" fleet "$D/tiny.ini" -i "$TMP/inventory" -o "$TMP/f1" --no-plots \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1 100); do pgrep -f "$TMP/bin/ansible-playbook" >/dev/null && break; sleep 0.1; done
pgrep -f "$TMP/bin/ansible-playbook" >/dev/null || { cat "$TMP/err"; fail "the fake ansible-playbook did not start"; }
kill -INT $pid
sleep 1
kill -0 $pid 2>/dev/null || { cat "$TMP/err"; fail "fleet ended at the first Ctrl-C (no abort play?)"; }
kill -INT $pid
for _ in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	kill -9 $pid
	pkill -9 -f "$TMP/bin/ansible-playbook"
	cat "$TMP/err"
	fail "fleet still running 10 s after the second Ctrl-C"
fi
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "an interrupted fleet exited $rc, not 130 (as an interrupted run)"
sleep 0.3
pgrep -f "$TMP/bin/ansible-playbook" >/dev/null && { pkill -9 -f "$TMP/bin/ansible-playbook"; fail "ansible-playbook left running"; }
grep -q 'tb_action=cleanup' "$TMP/err" || { cat "$TMP/err"; fail "no word on how to clean up the hosts"; }
echo "ok (exit $rc)"
exit 0
