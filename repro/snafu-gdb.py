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
#
# Or `source repro/snafu-gdb.py` in a running gdb. The program needs debug information
# (-g; every build of snafu has it). `snafu record CASE` prints these commands for a case.
#
# Where the state lives: sim/sched.c's task table (`sim_gdb_sched`, a pointer to its
# static S), the running task (`sim_cur`), the last decisions (`sim_last_preempt`,
# `sim_last_switch`), the trace (sim/trace.c's log_buf). Each task is a struct
# task_struct (ref/kernel.h) whose first member is its struct sim_task. A switched-out
# fiber's registers are on its own stack (sim/fiber.c, snafu_fiber_swap): at fiber->sp
# r15 r14 r13 r12 rbx rbp, then the return address.

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


class SnafuBt(gdb.Command):
    """snafu-bt N: the backtrace of simulated task N.
The running task: plain `bt`. A switched-out task: the registers its fiber saved
(rsp, rbp, rbx, r12-r15, rip) are put in place for one `bt`, then every register is
restored. Where gdb may not write registers (rr replay can refuse), a frame-pointer walk
from the saved registers instead. `snafu-bt N fp` asks for that walk."""

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
            for i in range(int(cfg["npreempts"])):
                p = cfg["preempts"][i]
                if (int(p["task"]) == int(cur["id"]) and
                        ((int(p["op"]) and int(p["op"]) == int(cur["op"]) and
                          int(p["point"]) == int(cur["op_points"])) or
                         (not int(p["op"]) and int(p["point"]) == int(cur["points"])))):
                    print("  the schedule preempts here: to T%d (preempt %d at op %d point %d"
                          " to %d)" % (int(p["to"]), int(p["task"]), int(p["op"]),
                                       int(p["point"]), int(p["to"])))
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


SnafuTasks()
SnafuBt()
SnafuStep()
