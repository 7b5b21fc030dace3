"""`serve --pin-cpus` pins every thread of the process, those it has and those it starts later."""

import os
import threading

from aftersales.cli.affinity import allowed_cpus, confine, pin
from tests.support.affinity import thread_cpus


def test_allowed_cpus_are_the_cpus_this_process_may_use_in_order():
    assert allowed_cpus() == sorted(os.sched_getaffinity(0)) and allowed_cpus()


def test_pin_puts_every_thread_on_the_one_cpu_those_started_before_it_and_after_it_too():
    original = os.sched_getaffinity(0)
    cpu = max(original)  # not the first allowed one, so a pin that ignored its argument would show
    release = threading.Event()
    threads = [threading.Thread(target=release.wait, name="started-before")]
    threads[0].start()
    try:
        pin(cpu)
        threads.append(threading.Thread(target=release.wait, name="started-after"))
        threads[1].start()
        seen = thread_cpus(os.getpid())
        assert {thread.native_id for thread in threads} <= set(seen)
        assert set(seen.values()) == {frozenset({cpu})}, seen
    finally:
        # pytest-xdist runs other tests in this process after this one: they must not stay on one CPU.
        confine(original)
        release.set()
        for thread in threads:
            thread.join()
    assert set(thread_cpus(os.getpid()).values()) == {frozenset(original)}
