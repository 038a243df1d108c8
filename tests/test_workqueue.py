"""The work queue's two lanes (reconciler.workqueue): a job with news (a pod that just exited or was lost) is handed
out before follow-ups that were due earlier, each lane in due order, one worker per key, Retry-After honoured."""

from __future__ import annotations

import threading
import time

from mxjob_gitops.reconciler.workqueue import WorkQueue


def take(queue: WorkQueue, count: int, wait: float = 0.05) -> list[str]:
    """Up to `count` keys, in the order handed out, each marked done; stops once none is due for `wait` seconds."""
    names = []
    for _ in range(count):
        stop = threading.Event()
        timer = threading.Timer(wait, stop.set)
        timer.start()
        key = queue.get(stop, timeout=0.01)
        timer.cancel()
        if key is None:
            break
        names.append(key[1])
        queue.done(key)
    return names


def test_an_urgent_key_goes_before_follow_ups_that_were_due_earlier() -> None:
    queue = WorkQueue()
    for name in ("a", "b", "c"):
        queue.add(("ns", name))
    queue.add(("ns", "exited"), urgent=True)
    assert take(queue, 4) == ["exited", "a", "b", "c"]


def test_each_lane_is_served_in_due_order() -> None:
    queue = WorkQueue()
    queue.add(("ns", "late"), 0.05, urgent=True)
    queue.add(("ns", "soon"), 0.0, urgent=True)
    queue.add(("ns", "normal"))
    assert take(queue, 2) == ["soon", "normal"]
    time.sleep(0.06)
    assert take(queue, 1) == ["late"]


def test_a_queued_follow_up_turns_urgent_and_is_handed_out_once() -> None:
    queue = WorkQueue()
    queue.add(("ns", "a"))
    queue.add(("ns", "job"), 5.0)  # a timer (a deadline, a back-off)
    queue.add(("ns", "job"), urgent=True)  # then its pod exits
    assert take(queue, 3) == ["job", "a"]
    assert queue.due_in(("ns", "job")) is None


def test_an_urgent_add_while_busy_comes_back_urgent_when_done() -> None:
    queue = WorkQueue()
    queue.add(("ns", "job"))
    stop = threading.Event()
    busy = queue.get(stop)
    assert busy == ("ns", "job")
    queue.add(("ns", "job"), urgent=True)  # its pod exits while it is being worked on
    queue.add(("ns", "other"))
    queue.done(busy)
    assert take(queue, 2) == ["job", "other"]


def test_retry_after_holds_an_urgent_key_too() -> None:
    queue = WorkQueue()
    queue.hold_off(("ns", "job"), 0.2)
    queue.add(("ns", "job"), urgent=True)
    assert take(queue, 1) == []
    time.sleep(0.25)
    assert take(queue, 2) == ["job"]
