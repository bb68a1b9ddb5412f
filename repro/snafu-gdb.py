# gdb helpers for snafu's simulator: the simulated tasks of a replay, under plain gdb or
# under `rr replay`.
#
#   gdb -x repro/snafu-gdb.py --args build/bin/snafu replay --stop-at-step=N CASE
#   (gdb) run                  stops by SIGTRAP at the run's N-th scheduling point
#   (gdb) snafu-step           the step, the running task and its op.point, the last
#                              scheduling decisions and the last events of the trace
#   (gdb) snafu-tasks          every task: sim state, kernel state (R/S/D), syscall, held
#                              locks, what it is blocked on
#   (gdb) snafu-bt N           task N's backtrace (a switched-out task's from the registers
#                              its fiber saved)
#   (gdb) snafu-futex          the futex oracle's books (ref/futex_oracle.c): each task's
#                              futex_wait (queued, its read against val, asleep, woken by
#                              which wake call), each wake call (whom it woke, whom it passed
#                              over or missed), FUTEX_CMP_REQUEUE's -EAGAIN, and the lost
#                              wake-up or wrong result they add up to
#   (gdb) snafu-lockdep        lockdep's report (ref/lockdep.c): the acquisition, the held
#                              lock and where it was taken, the task's held locks
#
# Or `source repro/snafu-gdb.py` in a running gdb. The program needs debug information
# (-g; every build of snafu has it). `snafu record CASE` prints these commands for a case,
# with the debug build (build-debug/bin/snafu, ./build.sh debug): at -O0 every frame's
# arguments and locals live in that frame, so the frames show true values; at -O2 gdb
# shows stale ones without <optimized out> (recovered from registers and call sites that
# no longer hold them), and snafu-bt says so first.
#
# Where the state lives: sim/sched.c's task table (`sim_gdb_sched`, a pointer to its
# static S), the running task (`sim_cur`), the last decisions (`sim_last_preempt`,
# `sim_last_switch`), the trace (sim/trace.c's log_buf). Each task is a struct
# task_struct (ref/kernel.h) whose first member is its struct sim_task. A switched-out
# fiber's registers are on its own stack (sim/fiber.c, snafu_fiber_swap): at fiber->sp
# r15 r14 r13 r12 rbx rbp, then the return address. The futex oracle's books are
# `fo` of ref/futex_oracle.c, lockdep's report the static `pred` of ref/lockdep.c.

import struct

import gdb

KSTATE = {0: "R", 1: "S", 2: "D"}


def _str(v):
    """A const char * or char[] as a Python string; None for NULL."""
    try:
        if v.type.strip_typedefs().code == gdb.TYPE_CODE_PTR and int(v) == 0:
            return None
        return v.string()
    except gdb.error:
        return "<unreadable>"


def _sched():
    try:
        return gdb.parse_and_eval("*sim_gdb_sched")
    except gdb.error as e:
        raise gdb.GdbError(
            "snafu: no simulator here (%s): run build/bin/snafu (not snafu-native), "
            "built with -g" % e)


def _tasks():
    s = _sched()
    ttype = gdb.lookup_type("struct task_struct").pointer()
    return [s["tasks"][i].cast(ttype) for i in range(int(s["ntasks"]))]


def _current():
    """The running task's struct sim_task *, or None (the scheduler runs)."""
    cur = gdb.parse_and_eval("sim_cur")
    return None if int(cur) == 0 else cur


def _sim_state(t):
    cur = _current()
    st = str(t["sim"]["state"]).replace("SIM_", "").lower()
    if cur is not None and int(cur) == int(t):
        return "running"
    return st


def _blocked(t):
    if int(t["blocked_on"]) == 0:
        return None
    return "%s(%s) at %s" % (_str(t["blocked_fn"]), _str(t["blocked_name"]),
                             _str(t["blocked_site"]))


class SnafuTasks(gdb.Command):
    """List the simulated tasks: id, comm, sim state, kernel state (R/S/D), syscall,
op.point, held locks (name, read/write, where taken), what the task is blocked on."""

    def __init__(self):
        super().__init__("snafu-tasks", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        tasks = _tasks()
        if not tasks:
            print("snafu-tasks: no tasks (the run has not started)")
            return
        for t in tasks:
            sim = t["sim"]
            sc = _str(t["syscall"])
            line = "%s (id %d): sim %s, state %s, in %s, op %d.%d (%d points)" % (
                _str(t["comm"]), int(sim["id"]), _sim_state(t),
                KSTATE.get(int(t["state"]), str(int(t["state"]))),
                sc if sc else "user mode", int(sim["op"]), int(sim["op_points"]),
                int(sim["points"]))
            b = _blocked(t)
            if b:
                line += ", blocked in " + b
            if int(sim["spinning_on"]) != 0:
                line += ", spinning"
            print(line)
            n = int(t["nheld"])
            if n == 0:
                print("  holds no locks")
            for i in range(n):
                h = t["held"][i]
                print("  holds #%d: %s (%s), taken at %s" % (
                    i, _str(h["name"]), "read" if bool(h["read"]) else "write",
                    _str(h["site"])))


# snafu_fiber_swap pushes rbp rbx r12 r13 r14 r15 and saves rsp: from fiber->sp up.
SAVED = ["r15", "r14", "r13", "r12", "rbx", "rbp"]


def _read_words(addr, n):
    mem = gdb.selected_inferior().read_memory(addr, 8 * n)
    return list(struct.unpack("<%dQ" % n, bytes(mem)))


def _fiber(t):
    """(sp, stack, size) of a task's fiber: struct sim_fiber starts with them."""
    f = int(t["sim"]["fiber"])
    if f == 0:
        return None
    sp, stack, size = _read_words(f, 3)
    return sp, stack, size


def _fp_walk(pc, rbp, limit=64):
    """A frame-pointer walk (every snafu file has -fno-omit-frame-pointer), for where
    registers cannot be written (rr replay may refuse)."""
    for i in range(limit):
        sym = gdb.execute("info symbol 0x%x" % pc, to_string=True).strip()
        sal = gdb.find_pc_line(pc - 1)  # a return address: the call is before it
        where = ""
        if sal.symtab is not None:
            where = " at %s:%d" % (sal.symtab.filename, sal.line)
        print("#%-2d 0x%016x in %s%s" % (i, pc, sym.split(" in section")[0], where))
        if rbp == 0:
            return
        try:
            rbp, pc = _read_words(rbp, 2)
        except gdb.MemoryError:
            return
        if pc == 0:
            return


def _optimized():
    """Whether this snafu was built with optimization (tools/record.c's
    snafu_gdb_optimized; False for a build without it)."""
    try:
        return int(gdb.parse_and_eval("snafu_gdb_optimized")) != 0
    except gdb.error:
        return False


class SnafuBt(gdb.Command):
    """snafu-bt N: the backtrace of simulated task N.
The running task: plain `bt`. A switched-out task: the registers its fiber saved
(rsp, rbp, rbx, r12-r15, rip) are put in place for one `bt`, then every register is
restored. Where gdb may not write registers (rr replay can refuse), a frame-pointer walk
from the saved registers instead. `snafu-bt N fp` asks for that walk.
In an optimized snafu (-O2) it says first that the values may be stale: snafu record's
commands run the debug build (-O0), whose frames are true."""

    def __init__(self):
        super().__init__("snafu-bt", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if not args or not args[0].isdigit():
            raise gdb.GdbError("usage: snafu-bt N [fp]   (N: a task id, see snafu-tasks)")
        n = int(args[0])
        tasks = _tasks()
        if not 1 <= n <= len(tasks):
            raise gdb.GdbError("snafu-bt: no task %d (tasks 1..%d)" % (n, len(tasks)))
        t = tasks[n - 1]
        if _optimized():
            print("snafu-bt: this snafu is optimized (-O2): gdb may show stale argument "
                  "values below, not <optimized out>; the debug build's frames are true "
                  "(./build.sh debug; snafu record's commands run it)")
        if str(t["sim"]["state"]) == "SIM_DONE":
            print("T%d has finished: its fiber holds no stack" % n)
            return
        fib = _fiber(t)
        if fib is None:
            raise gdb.GdbError("snafu-bt: T%d has no fiber" % n)
        sp, stack, size = fib
        frame0 = gdb.newest_frame()
        rsp = int(frame0.read_register("rsp"))
        if stack <= rsp < stack + size:
            print("T%d is running: its stack is the live one" % n)
            gdb.execute("bt")
            return
        words = _read_words(sp, 7)
        saved = dict(zip(SAVED, words[:6]))
        saved["rip"] = words[6]
        saved["rsp"] = sp + 7 * 8  # after snafu_fiber_swap's pops and ret
        print("T%d is switched out (sim %s): its fiber's saved registers, sp 0x%x" % (
            n, _sim_state(t), sp))
        if len(args) > 1 and args[1] == "fp":
            _fp_walk(saved["rip"], saved["rbp"])
            return
        self._bt_with(saved)

    @staticmethod
    def _bt_with(saved):
        sel = gdb.selected_frame()
        level = 0
        f = sel
        while f is not None and f.newer() is not None:
            f = f.newer()
            level += 1
        gdb.newest_frame().select()  # writes to frame 0 go to the thread's registers
        names = ["rip", "rsp", "rbp", "rbx", "r12", "r13", "r14", "r15"]
        old = {r: int(gdb.newest_frame().read_register(r)) for r in names}
        written = []
        try:
            try:
                for r in names:
                    gdb.execute("set $%s = 0x%x" % (r, saved[r]), to_string=True)
                    written.append(r)
            except gdb.error as e:
                print("snafu-bt: gdb cannot write registers here (%s); a frame-pointer walk "
                      "from the saved registers instead:" % str(e).strip())
                _fp_walk(saved["rip"], saved["rbp"])
                return
            gdb.execute("bt")
        finally:
            failed = []
            for r in reversed(written):
                try:
                    gdb.execute("set $%s = 0x%x" % (r, old[r]), to_string=True)
                except gdb.error:
                    failed.append(r)
            if failed:
                print("snafu-bt: could not restore %s: the registers are off, do not "
                      "continue" % ", ".join(failed))
            try:
                f = gdb.newest_frame()
                for _ in range(level):
                    f = f.older() or f
                f.select()
            except gdb.error:
                pass


def _preempt_fired(status, i):
    """Whether preemption I of the schedule has fired: sim_config.pre_status, which the
    simulator fills in as it goes (NULL where nobody asked for it: then False)."""
    try:
        return bool(int(status)) and bool(status[i]["fired"])
    except gdb.error:
        return False


def _decision(d):
    if int(d["step"]) == 0 and int(d["to"]) == 0:
        return "none yet"
    why = _str(d["why"])
    frm = int(d["from"])
    s = "step %d: %s -> T%d (%s" % (int(d["step"]), "T%d" % frm if frm else "start",
                                    int(d["to"]), why)
    if why == "preempt":
        s += " at %s, op %d.%d" % (_str(d["site"]), int(d["op"]), int(d["point"]))
    return s + ")"


def _trace_tail(n):
    """The last n events of the trace (sim/trace.c), when the run keeps one."""
    syms = [s for s in gdb.lookup_static_symbols("log_buf")
            if s.symtab is not None and s.symtab.filename.endswith("trace.c")]
    nsyms = [s for s in gdb.lookup_static_symbols("log_n")
             if s.symtab is not None and s.symtab.filename.endswith("trace.c")]
    if not syms or not nsyms:
        return []
    buf, count = syms[0].value(), int(nsyms[0].value())
    if int(buf) == 0:
        return []
    kinds = {}
    try:
        for f in gdb.lookup_type("enum sim_event").fields():
            kinds[f.enumval] = f.name[3:].lower()
    except gdb.error:
        pass
    out = []
    for i in range(max(0, count - n), count):
        e = buf[i]
        fn, obj = _str(e["fn"]), _str(e["obj"])
        k = int(e["kind"])
        s = "T%d %d.%d %s %s" % (int(e["task"]), int(e["op"]), int(e["point"]),
                                 kinds.get(k, str(k)), fn or "-")
        if obj:
            s += " " + obj
        if kinds.get(k) == "preempt":
            s += " -> T%d" % int(e["arg"])
        out.append(s)
    return out


class SnafuStep(gdb.Command):
    """Where the run is: the step (scheduling points so far), the running task and its
op.point, what the schedule does at this point, the last preemption and the last switch
between tasks, and the last events of the trace."""

    def __init__(self):
        super().__init__("snafu-step", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        s = _sched()
        cfg = s["cfg"]
        stop = int(cfg["stop_at_step"])
        print("step %d of budget %d, virtual time %d%s" % (
            int(s["steps"]), int(cfg["step_budget"]), int(s["now"]),
            ", --stop-at-step=%d" % stop if stop else ""))
        cur = _current()
        if cur is None:
            print("running: the scheduler (no task)")
        else:
            t = cur.cast(gdb.lookup_type("struct task_struct").pointer())
            sc = _str(t["syscall"])
            print("running: %s (id %d), op %d.%d, in %s" % (
                _str(t["comm"]), int(cur["id"]), int(cur["op"]), int(cur["op_points"]),
                sc if sc else "user mode"))
            status = cfg["pre_status"]
            for i in range(int(cfg["npreempts"])):
                p = cfg["preempts"][i]
                if (int(p["task"]) == int(cur["id"]) and
                        ((int(p["op"]) and int(p["op"]) == int(cur["op"]) and
                          int(p["point"]) == int(cur["op_points"])) or
                         (not int(p["op"]) and int(p["point"]) == int(cur["points"])))):
                    # The task's op.point stays where the preemption took it away, so
                    # back on it after the switch it matches still: "here" only while
                    # the preemption has not fired (its status), "fired" after.
                    what = "(preempt %d at op %d point %d to %d)" % (
                        int(p["task"]), int(p["op"]), int(p["point"]), int(p["to"]))
                    if _preempt_fired(status, i):
                        print("  the schedule preempted here already: to T%d, then back %s"
                              % (int(p["to"]), what))
                    else:
                        print("  the schedule preempts here: to T%d %s" % (int(p["to"]), what))
        print("last preemption: " + _decision(gdb.parse_and_eval("sim_last_preempt")))
        print("last switch:     " + _decision(gdb.parse_and_eval("sim_last_switch")))
        try:
            f = gdb.parse_and_eval("finding")
            if bool(f["found"]):
                print("finding: %s (%s)" % (_str(f["title"]), _str(f["token"])))
        except gdb.error:
            pass
        tail = _trace_tail(8)
        if tail:
            print("last events (task op.point event function object):")
            for line in tail:
                print("  " + line)


def _static(name, filename):
    """The variable NAME that the source file FILENAME defines, static or not (its value),
    or None."""
    for sym in gdb.lookup_static_symbols(name):
        if sym.symtab is not None and sym.symtab.filename.endswith(filename):
            return sym.value()
    sym = gdb.lookup_global_symbol(name)
    if sym is not None and sym.symtab is not None and sym.symtab.filename.endswith(filename):
        return sym.value()
    return None


def _comm(task):
    try:
        tasks = _tasks()
        if 1 <= task <= len(tasks):
            return _str(tasks[task - 1]["comm"])
    except gdb.error:
        pass
    return "T%d" % task


def _at(w):
    """A struct fo_when as op.point; "?" when not recorded."""
    op, point = int(w["op"]), int(w["point"])
    return "%d.%d" % (op, point) if op or point else "?"


def _read(v):
    return str(v).replace("FO_", "")


def _same_key(a, b):
    return all(int(a[f]) == int(b[f]) for f in ("word", "ptr", "offset"))


def _sleeper_state(fo, ref, key):
    """None when the waiter a wake call passed over or missed sleeps in that same
    futex_wait on that key (what the oracle counts as lost at the end), else why not."""
    w = fo["wait"][int(ref["task"])]
    if not bool(w["active"]) or int(w["serial"]) != int(ref["serial"]):
        return "that futex_wait is over (woken later, timed out or interrupted)"
    if not _same_key(w["key"], key):
        return "requeued to another futex"
    if not bool(w["asleep"]):
        return "not asleep (yet) in that futex_wait"
    return None


def _wait_line(fo, t):
    w = fo["wait"][t]
    if int(w["serial"]) == 0:
        return None
    val = int(w["val"])
    parts = ["futex_wait(0x%x, val %d), %s" % (int(w["uaddr"]), val,
                                                "in progress" if bool(w["active"])
                                                else "returned")]
    if bool(w["queued"]):
        parts.append("queued (at %s)" % _at(w["queued_at"]))
    elif bool(w["round_queued"]):
        parts.append("queued at %s, no longer" % _at(w["queued_at"]))
    else:
        parts.append("not queued")
    rd = _read(w["read"])
    cur = int(w["curval"])
    if rd == "MATCH":
        parts.append("read %d == val at %s: waiting from then" % (cur, _at(w["read_at"])))
    elif rd == "MISMATCH":
        parts.append("read %d != val %d at %s: never waited" % (cur, val, _at(w["read_at"])))
    else:
        parts.append("has not read the word (this round)")
    if bool(w["asleep"]):
        parts.append("asleep since %s" % _at(w["slept_at"]))
    wb = int(w["woken_by"])
    if wb >= 0:
        r = fo["wakes"][wb]
        parts.append("woken by wake call #%d (%s's %s at %s)" % (
            wb, _comm(int(r["task"])), _str(r["op"]), _at(r["at"])))
    else:
        parts.append("not woken (this round)")
    return "%s: %s" % (_comm(t), ", ".join(parts))


def _wake_lines(fo, i):
    r = fo["wakes"][i]
    cur = int(fo["cur"])
    walking = cur != 0 and cur == int(r.address)
    out = ["#%d %s %s(0x%x) at %s, may wake %d, %s" % (
        i, _comm(int(r["task"])), _str(r["op"]), int(r["uaddr"]), _at(r["at"]),
        int(r["budget"]), "walking the chain now (the books close at fo_wake_end's end)"
        if walking else "returned %d" % int(r["ret"]))]
    absorbed = False
    for a in range(int(r["nwoken"])):
        ref = r["woken"][a]
        t, val, rd = int(ref["task"]), int(ref["val"]), _read(ref["read"])
        if bool(ref["absorbed"]):
            absorbed = True
            line = "   woke %s: read %d, not its val %d, at %s%s: absorbed, it never waited" % (
                _comm(t), int(ref["curval"]), val, _at(ref["read_at"]),
                " (after the wake)" if bool(ref["read_after"]) else "")
            if bool(ref["returned"]):
                line += "; its futex_wait returned %d" % int(ref["ret"])
        elif rd == "MATCH":
            line = "   woke %s: read its val %d at %s, a waiter" % (_comm(t), val,
                                                                  _at(ref["read_at"]))
        else:
            line = "   woke %s: has not read yet (val %d)" % (_comm(t), val)
        out.append(line)
    if not int(r["nwoken"]):
        out.append("   woke nobody" + (" so far" if walking else ""))
    lost = []
    for p in range(int(r["npassed"])):
        ref = r["passed"][p]
        why = _sleeper_state(fo, ref, r["key"])
        asleep = why is None
        out.append("   passed over %s, waiting (read its val, queued): %s" % (
            _comm(int(ref["task"])), why or "still asleep in that futex_wait"))
        if asleep and absorbed:
            lost.append("absorbed: the wake-up went to a waiter that never waited, "
                        "%s sleeps on" % _comm(int(ref["task"])))
    for m in range(int(r["nmissed"])):
        ref = r["missed"][m]
        why = _sleeper_state(fo, ref, r["key"])
        asleep = why is None
        out.append("   missed %s: it had read %d, its val, and not queued yet; the word then "
                   "held %d: %s" % (_comm(int(ref["task"])), int(ref["curval"]),
                                    int(ref["now"]), why or "still asleep in that futex_wait"))
        if asleep or (why.startswith("not asleep") and _current() is not None):
            lost.append("missed: %s read the word, it changed, and the wake found nobody"
                        % _comm(int(ref["task"])))
    for why in lost[:1]:
        if _current() is None:  # the run is over: what the oracle judges
            out.append("   => a lost wake-up (%s)" % why)
        else:
            out.append("   => a lost wake-up so far (%s); lost for good if it is asleep "
                       "there when the run ends" % why)
    return out, bool(lost)


def _cmp_lines(fo):
    out = []
    e = fo["eagain"]
    queues = fo["queues"]
    if bool(e["seen"]):
        t = int(e["task"])
        val, cur, now = int(e["val"]), int(e["curval"]), int(e["now"])
        out.append("FUTEX_CMP_REQUEUE's first -EAGAIN from nqueued: %s FUTEX_CMP_REQUEUE"
                   "(0x%x, val %d) at %s" % (_comm(t), int(e["uaddr"]), val, _at(e["at"])))
        out.append("   it read %d%s; the word held %s when it returned; nqueued went %d -> %d"
                   % (cur, ", its val" if cur == val else ", not its val",
                      "%d" % now if bool(e["now_ok"]) else "nothing (no VMA)",
                      int(e["then_nq"]), int(e["now_nq"])))
        for i in range(int(e["first_queue"]), int(e["last_queue"])):
            q = queues[i]
            if int(q["bucket"]) == int(e["bucket"]):
                out.append("   queue_me() into that bucket during the call: %s at %s "
                           "(futex_wait(0x%x))" % (_comm(int(q["task"])), _at(q["at"]),
                                                   int(q["uaddr"])))
        if cur == val and bool(e["now_ok"]) and now == val:
            out.append("   => a wrong result: -EAGAIN, though the word equalled val "
                       "throughout the call")
        return out
    # none yet: a FUTEX_CMP_REQUEUE between its nqueued sample and its check
    nq = int(fo["nqueues"])
    for t in range(1, fo["cmp_bucket"].type.range()[1] + 1):
        b = int(fo["cmp_bucket"][t])
        if b == 0:
            continue
        since = [q for q in (queues[i] for i in range(int(fo["cmp_queues"][t]), nq))
                 if int(q["bucket"]) == b]
        out.append("FUTEX_CMP_REQUEUE: %s sampled its bucket's nqueued (%d); queue_me() there "
                   "since: %s" % (_comm(t), int(fo["cmp_nq"][t]), ", ".join(
                       "%s at %s" % (_comm(int(q["task"])), _at(q["at"])) for q in since)
                       or "none"))
    if not out:
        out.append("FUTEX_CMP_REQUEUE: no -EAGAIN from nqueued")
    return out


class SnafuFutex(gdb.Command):
    """The futex oracle's books (ref/futex_oracle.c, docs/oracles.md), as they stand:
each task's futex_wait (its current one, or its last): queued, what it read against its
val, asleep, woken by which wake call; each wake call (FUTEX_WAKE, a requeue's wake half):
whom it woke, whom it passed over or missed, and whether that makes a lost wake-up; the
first -EAGAIN of FUTEX_CMP_REQUEUE from nqueued and the queue_me() calls that moved it.
Places are op.point, as `snafu replay --trace` numbers them. The oracle judges at the end
of the run (futex_oracles_judge); a passed-over waiter woken later is not lost."""

    def __init__(self):
        super().__init__("snafu-futex", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        fo = _static("fo", "futex_oracle.c")
        if fo is None:
            raise gdb.GdbError("snafu-futex: no futex oracle here (ref/futex_oracle.c's fo): "
                               "run build/bin/snafu, built with -g")
        nwait = fo["wait"].type.range()[1]
        print("futex oracle (op.point as `snafu replay --trace` numbers them):")
        print("futex_wait, each task's current or last:")
        any_wait = False
        for t in range(1, nwait + 1):
            line = _wait_line(fo, t)
            if line:
                any_wait = True
                print("  " + line)
        if not any_wait:
            print("  none")
        nwakes = int(fo["nwakes"])
        cap = fo["wakes"].type.range()[1] + 1
        print("wake calls: %d%s" % (nwakes, " (the first %d kept)" % cap
                                    if nwakes >= cap else ""))
        lost = False
        for i in range(nwakes):
            lines, l = _wake_lines(fo, i)
            lost = lost or l
            for line in lines:
                print("  " + line)
        for line in _cmp_lines(fo):
            print(line)
        try:
            f = gdb.parse_and_eval("finding")
            if bool(f["found"]):
                print("finding: %s (%s)" % (_str(f["title"]), _str(f["token"])))
        except gdb.error:
            pass


def _frame_named(name):
    f = gdb.newest_frame()
    while f is not None:
        if f.name() == name:
            return f
        f = f.older()
    return None


class SnafuLockdep(gdb.Command):
    """Lockdep's report in this run (ref/lockdep.c, docs/lockdep.md): the task and the
acquisition it reported (op.point, scheduling point), the lock class it already held and
where that was taken, and the locks the task holds. Stopped in lockdep_bug() before it
has filled the report in, the same from lockdep_bug's arguments."""

    def __init__(self):
        super().__init__("snafu-lockdep", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        pred = _static("pred", "lockdep.c")
        if pred is None:
            raise gdb.GdbError("snafu-lockdep: no lockdep here (ref/lockdep.c's pred): run "
                               "build/bin/snafu, built with -g")
        t = None
        if bool(pred["made"]):
            t = int(pred["task"])
            print("lockdep: %s (%s)" % (_str(pred["title"]), _str(pred["token"])))
            print("  %s tried to acquire %s at op.point %d.%d (scheduling point %d)" % (
                _comm(t), _str(pred["locks"][1]), int(pred["op"]), int(pred["point"]),
                int(pred["step"])))
            print("  it already held %s, taken at %s" % (_str(pred["locks"][0]),
                                                        _str(pred["held_site"])))
        else:
            f = _frame_named("lockdep_bug")
            if f is None:
                print("lockdep: no report in this run yet (break lockdep_bug: where it makes "
                      "one)")
                return
            # lockdep_bug's arguments, else its caller's (report_recursive or
            # report_circular: the same t, h and w), which -O2 keeps more often
            got, err = None, None
            for fr in (f, f.older()):
                if fr is None:
                    continue
                try:
                    tk, h, w = fr.read_var("t"), fr.read_var("h"), fr.read_var("w")
                    t = int(tk["pid"])
                    got = (fr, tk, h, w)
                    break
                except (gdb.error, ValueError) as e:
                    err = e
            if got is None:
                print("lockdep: reporting now (lockdep_bug); its arguments are not readable "
                      "here (%s): `finish`, then snafu-lockdep" % err)
                return
            fr, tk, h, w = got
            try:
                circ = bool(f.read_var("circular"))
            except (gdb.error, ValueError):
                circ = fr.name() == "report_circular"
            sim = tk["sim"]
            via = _str(w["via"])
            print("lockdep: reporting now (lockdep_bug): possible %s" % (
                "circular locking dependency" if circ else "recursive locking"))
            print("  %s tries to acquire %s (%s)%s at op.point %d.%d" % (
                _comm(t), _str(w["name"]), "write" if int(w["read"]) == 0 else "read",
                " in might_fault(), from %s() in %s" % (via, _str(w["site"])) if via
                else " at %s" % _str(w["site"]), int(sim["op"]), int(sim["op_points"])))
            print("  it already holds %s (%s), taken at %s" % (
                _str(h["name"]), "read" if bool(h["read"]) else "write", _str(h["site"])))
        try:
            tasks = _tasks()
        except gdb.GdbError:
            return
        if t is not None and 1 <= t <= len(tasks):
            tt = tasks[t - 1]
            n = int(tt["nheld"])
            print("%s holds %d lock%s now:" % (_comm(t), n, "" if n == 1 else "s"))
            for i in range(n):
                h = tt["held"][i]
                print("  holds #%d: %s (%s), taken at %s" % (
                    i, _str(h["name"]), "read" if bool(h["read"]) else "write",
                    _str(h["site"])))


SnafuTasks()
SnafuBt()
SnafuStep()
SnafuFutex()
SnafuLockdep()
