"""The build scheduler: games stay on one process, idle processes steal, follow-ups run,
failures stop the run."""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import time

import pytest

from cardgen import schedule
from cardgen.errors import CardgenError, InternalError, Location
from cardgen.schedule import Task

FORK = multiprocessing.get_context("fork")


def where(name: str, seconds: float = 0.0) -> tuple[str, int]:
    time.sleep(seconds)
    return name, os.getpid()


def boom(name: str) -> None:
    raise ValueError(f"task {name} failed")


def collect(tasks: list[Task], jobs: int, follow=lambda task, result: []) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []

    def on_result(task: Task, result: tuple[str, int]) -> list[Task]:
        seen.append(result)
        return follow(task, result)

    schedule.run(tasks, jobs, on_result, mp_context=FORK)
    return seen


def in_step(name: str, until: float) -> tuple[str, int]:
    """A task that ends at the wall-clock time ``until``: tasks given the same times progress
    in step in every process, however late a process started."""
    time.sleep(max(0.0, until - time.time()))
    return name, os.getpid()


def test_each_group_runs_in_one_process_when_groups_balance():
    """Two groups of equal work, progressing in step (a process forked late on a busy
    machine would otherwise fall a task behind, and the other, idle, rightly take its last):
    neither process takes the other's work."""
    start = time.time() + 0.5   # both processes are running by then
    tasks = [Task(in_step, (f"{g}{i}", start + 0.05 * (i + 1)), group=g) for g in "ab" for i in range(6)]
    seen = collect(tasks, 2)
    assert sorted(name for name, _ in seen) == sorted(t.args[0] for t in tasks)
    pids = {g: {pid for name, pid in seen if name[0] == g} for g in "ab"}
    assert len(pids["a"]) == len(pids["b"]) == 1 and pids["a"] != pids["b"]
    assert os.getpid() not in pids["a"] | pids["b"], "work runs in worker processes"


def test_an_idle_process_steals_from_the_largest_group():
    tasks = [Task(where, (f"big{i}", 0.05), group="big", cost=1) for i in range(12)]
    tasks.append(Task(where, ("small", 0.0), group="small", cost=1))
    seen = collect(tasks, 2)
    big_pids = {pid for name, pid in seen if name.startswith("big")}
    assert len(big_pids) == 2, "the lane that finished 'small' helped with 'big'"
    # the thief takes from the far end, so the owner keeps the front of its queue
    owner = dict(seen)["big0"]
    assert dict(seen)["big11"] != owner


def test_an_idle_process_steals_the_costliest_task_so_the_small_ones_end_the_run():
    """A large component's last pieces are small: the thief takes the big ones, wherever
    they are in the owner's queue, and the two lanes finish on small pieces together."""
    costs = [4, 4, 4, 4, 4, 4, 2, 1, 1]
    tasks = [Task(where, (f"p{i}", 0.03 * c), group="deck", cost=c) for i, c in enumerate(costs)]
    tasks.append(Task(where, ("other", 0.0), group="other", cost=0.5))
    seen = collect(tasks, 2)
    owner = dict(seen)["p0"]
    stolen = [name for name, pid in seen if pid != owner and name.startswith("p")]
    assert stolen and all(costs[int(name[1:])] == 4 for name in stolen[:2])
    assert [name for name, _ in seen][-2:] != ["p5", "p4"], "no big piece ends the run"


def test_the_last_heavy_task_waits_for_a_free_process_instead_of_queueing_behind_a_busy_one():
    """Two rule sheets of one game end the run: the second is not queued behind the first
    (where no other process could take it), so the process that finishes its small work
    first draws it."""
    tasks = [Task(where, ("sheet1", 0.4), group="game", cost=20), Task(where, ("sheet2", 0.2), group="game", cost=20),
             Task(where, ("small", 0.05), group="other", cost=5)]
    seen = dict(collect(tasks, 2))
    assert seen["sheet2"] != seen["sheet1"] and seen["sheet2"] == seen["small"]


def test_a_task_is_queued_ahead_while_enough_work_remains_for_the_others():
    lanes = [schedule._Lane(None), schedule._Lane(None)]   # type: ignore[arg-type]
    lanes[0].own.extend(Task(where, (f"a{i}",), cost=2) for i in range(3))
    lanes[1].own.append(Task(where, ("b",), cost=1))
    assert schedule._may_queue_ahead(lanes[0], lanes)        # 2 + 2 + 1 left besides it
    lanes[0].own.pop()
    assert schedule._may_queue_ahead(lanes[0], lanes)        # 2 + 1 left: still its cost
    lanes[1].own.clear()
    assert schedule._may_queue_ahead(lanes[0], lanes)        # its second task, 2, left to steal
    lanes[0].own.pop()
    assert not schedule._may_queue_ahead(lanes[0], lanes)    # nothing left besides it
    lanes[0].urgent.append(Task(where, ("follow-up",), cost=1))
    assert schedule._may_queue_ahead(lanes[0], lanes)        # its own task, 2, is left besides the follow-up
    lanes[0].own.clear()
    assert not schedule._may_queue_ahead(lanes[0], lanes)    # the follow-up alone: an idle lane may take it


def test_a_task_is_not_queued_behind_more_work_than_the_others_have_left():
    """Queued ahead, a task waits for what its process runs; while the others have less work
    than that left, it stays where a process that falls idle can take it."""
    lanes = [schedule._Lane(None), schedule._Lane(None)]   # type: ignore[arg-type]
    lanes[0].running.append(Task(where, ("deck's PDF",), cost=1))
    lanes[0].own.append(Task(where, ("cached faces",), cost=0.05))
    lanes[1].own.extend(Task(where, (f"b{i}",), cost=0.05) for i in range(4))
    assert not schedule._may_queue_ahead(lanes[0], lanes)    # 0.2 left besides it, behind 1
    lanes[1].own.extend(Task(where, (f"c{i}",), cost=0.5) for i in range(2))
    assert schedule._may_queue_ahead(lanes[0], lanes)        # 1.2 left: enough to keep the other busy


def test_a_cheap_task_behind_a_long_one_is_taken_by_the_process_that_falls_idle():
    """After a one-card edit: a piece of cached faces that completes the spare set is not
    queued behind the deck's PDF, so the other process, done with its own pieces, takes it
    (and the spare set's PDF after it) while the deck's is written."""
    tasks = [Task(where, ("deck's PDF", 0.5), group="a", cost=1),
             Task(where, ("cached faces", 0.0), group="a", cost=0.05),
             *(Task(where, (f"b{i}", 0.02), group="b", cost=0.05) for i in range(4))]
    seen = dict(collect(tasks, 2))
    assert seen["cached faces"] != seen["deck's PDF"] and seen["cached faces"] == seen["b0"]


def test_follow_ups_run_next_on_the_same_process():
    tasks = [Task(where, (f"a{i}", 0.01), group="a") for i in range(3)]

    def follow(task: Task, result: tuple[str, int]) -> list[Task]:
        return [Task(where, ("after-" + result[0],), group="a")] if result[0] == "a1" else []

    seen = collect(tasks, 2, follow)
    names = [name for name, _ in seen]
    assert "after-a1" in names and names.index("after-a1") > names.index("a1")
    assert dict(seen)["after-a1"] == dict(seen)["a1"]


def test_a_follow_up_waiting_for_a_busy_process_is_taken_by_an_idle_one():
    """After a one-card edit, the two PDFs that print the card follow the same piece of work:
    once nothing is left to render, the process with nothing to do writes the second."""
    tasks = [Task(where, ("card", 0.05), group="a"), Task(where, ("other", 0.01), group="b")]

    def follow(task: Task, result: tuple[str, int]) -> list[Task]:
        return [Task(where, (f"write{i}", 0.3), group="a") for i in (1, 2)] if result[0] == "card" else []

    seen = dict(collect(tasks, 2, follow))
    assert seen["write1"] == seen["card"] and seen["write2"] != seen["write1"]


def wait_for_file(path: str) -> tuple[str, int]:
    """A task that ends once ``path`` exists (30 s at most): whether it appeared is its name."""
    for _ in range(3000):
        if os.path.exists(path):
            return "saw it", os.getpid()
        time.sleep(0.01)
    return "gave up", os.getpid()


def touch(path: str) -> tuple[str, int]:
    open(path, "w").close()
    return "touched", os.getpid()


def test_tasks_released_by_a_wake_run_while_the_others_still_run(tmp_path):
    """The check gate answers while both processes are busy: what it held back is handed to a
    process then, not once some task next ends. Here a task that only ends when the released
    one has run: released at the next task's end, it would wait its 30 s out in vain."""
    import threading
    from concurrent.futures import Future

    flag = str(tmp_path / "flag")
    tasks = [Task(wait_for_file, (flag,), group="a"), Task(where, ("long", 0.3), group="b")]
    woken: Future = Future()

    def started() -> Future:
        threading.Timer(0.1, woken.set_result, (None,)).start()
        return woken

    seen: list[tuple[str, int]] = []
    schedule.run(tasks, 2, lambda task, result: seen.append(result) or [], mp_context=FORK, on_started=started,
                 on_wake=lambda: [Task(touch, (flag,), group="c")])
    assert sorted(name for name, _ in seen) == ["long", "saw it", "touched"], seen


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_caller_hears_each_time_the_due_tasks_are_handed_out(jobs):
    """``on_fed`` comes once the first tasks are out, before any result, and after each
    result's follow-ups are handed out (here: queued): the build starts work of its own on a
    thread then, which would otherwise hold up the handing out."""
    events: list[str] = []
    tasks = [Task(where, (f"t{i}",), group="ab"[i % 2]) for i in range(4)]

    def on_result(task: Task, result: tuple[str, int]) -> list[Task]:
        events.append("result")
        return [Task(where, ("after",), group="a")] if result[0] == "t0" else []

    schedule.run(tasks, jobs, on_result, mp_context=FORK, on_fed=lambda: events.append("fed"))
    assert events[0] == "fed" and events.count("result") == 5
    assert all(events[i + 1] == "fed" for i, e in enumerate(events) if e == "result" and jobs == 1)
    assert events[-1] == "fed"


def test_threads_switch_often_while_tasks_are_handed_out():
    """While a run hands tasks to its workers, threads switch every SWITCH_SECONDS: the
    threads that hand a task over (the pool's, the build's) waited up to 5 ms each for the
    interpreter while a thread of rules ran beside them; afterwards, as before."""
    before = sys.getswitchinterval()
    during: list[float] = []
    schedule.run([Task(where, ("a",))], 2, lambda task, result: during.append(sys.getswitchinterval()) or [],
                 mp_context=FORK)
    assert during == [pytest.approx(schedule.SWITCH_SECONDS)] and sys.getswitchinterval() == before


def test_one_process_runs_in_order_here():
    tasks = [Task(where, (n,), group=g) for n, g in (("x", "1"), ("y", "2"), ("z", "1"))]

    def follow(task: Task, result: tuple[str, int]) -> list[Task]:
        return [Task(where, ("x-next",))] if result[0] == "x" else []

    seen = collect(tasks, 1, follow)
    assert [name for name, _ in seen] == ["x", "x-next", "y", "z"]
    assert {pid for _, pid in seen} == {os.getpid()}


def mark(folder: str, name: str) -> tuple[str, int]:
    time.sleep(0.02)
    open(os.path.join(folder, name), "w").close()
    return name, os.getpid()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_task_stops_the_run(tmp_path, jobs):
    """An unforeseen exception becomes the same InternalError for every number of jobs."""
    tasks = [Task(where, ("ok",)), Task(boom, ("bad",))] + [Task(mark, (str(tmp_path), f"later{i}")) for i in range(20)]
    with pytest.raises(InternalError) as info:
        collect(tasks, jobs)
    assert info.value.message == "ValueError: task bad failed" and info.value.exit_code == 70
    assert len(list(tmp_path.iterdir())) < 20, "the remaining tasks were cancelled, not all run"


class OddError(CardgenError):
    """A constructor unlike CardgenError's: what pickle cannot call again by itself."""

    def __init__(self, count: int, path: str) -> None:
        super().__init__(f"{count} things wrong", Location(path, 3, 4), "fix them", code="odd")
        self.count = count


def odd(name: str) -> None:
    raise OddError(7, f"{name}.yaml")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_error_with_any_constructor_crosses_from_a_worker_whole(jobs):
    with pytest.raises(OddError) as info:
        collect([Task(where, ("ok",)), Task(odd, ("deck",))], jobs)
    err = info.value
    assert (str(err), err.count) == ("deck.yaml:3:4: error[odd]: 7 things wrong. Fix: fix them.", 7)


def die(name: str) -> None:
    os._exit(3)


def test_a_worker_that_dies_is_a_clear_error_not_a_broken_pool():
    with pytest.raises(InternalError) as info:
        collect([Task(where, ("ok",), group="a"), Task(die, ("x",), group="b")], 2)
    assert "a build worker process ended abruptly" in info.value.message
    assert "--jobs 1" in info.value.fix


def frozen(name: str) -> tuple[str, int]:
    return name, gc.get_freeze_count()


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_existed_before_the_run_is_left_to_the_collector_afterwards(jobs):
    """During a run the garbage collector leaves the objects that existed before it alone,
    in forked workers too (their collections would walk everything inherited); afterwards
    the caller's collector is as it was, also when a task fails."""
    keep = [[i] for i in range(1000)]   # objects that exist before the run
    seen = collect([Task(frozen, (str(i),), group=str(i)) for i in range(4)], jobs)
    assert keep and all(count >= 1000 for _name, count in seen)
    assert gc.get_freeze_count() == 0
    with pytest.raises(InternalError):
        collect([Task(boom, ("x",))], jobs)
    assert gc.get_freeze_count() == 0


def slow_boom(name: str, seconds: float) -> None:
    time.sleep(seconds)
    raise ValueError(f"task {name} failed")


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_the_error_reported_is_the_first_in_task_order_for_any_number_of_jobs(jobs):
    """Task 'a' fails slowly, 'b' at once: with several processes 'b' fails first, yet the
    run reports 'a', as a run on one process does."""
    tasks = [Task(where, ("ok",), group="x"), Task(slow_boom, ("a", 0.5), group="a"), Task(boom, ("b",), group="b")]
    with pytest.raises(InternalError) as info:
        collect(tasks, jobs)
    assert info.value.message == "ValueError: task a failed"
