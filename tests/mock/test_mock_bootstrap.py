"""The P/D bootstrap rendezvous of the mocker: a decode waits for its prefill's KV whichever comes first, a
finished room waits (bounded) for its decode, and a prefill that fails, never finishes or is not there is the
decode's error. In process: a prefill's bootstrap server on a loopback port and a decode's waiter."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from srt_tui.mock.bootstrap import BootstrapApp, KVTransferError, KVWaiter, Rendezvous
from srt_tui.mock.listener import Listener

HOST = "127.0.0.1"


async def test_a_room_the_prefill_finished_first_is_ready_at_once() -> None:
    rooms = Rendezvous()
    rooms.finish("7")
    assert rooms.unclaimed == 1
    assert await rooms.wait("7", 1) is None
    assert rooms.unclaimed == 0 and rooms.waiting == 0


async def test_a_decode_that_comes_first_waits_until_the_prefill_finishes() -> None:
    rooms = Rendezvous()
    waiter = asyncio.create_task(rooms.wait("8", 5))
    await asyncio.sleep(0.05)
    assert not waiter.done() and rooms.waiting == 1
    rooms.finish("8")
    assert await waiter is None
    assert rooms.waiting == 0 and rooms.unclaimed == 0


async def test_a_failed_prefill_is_the_decodes_answer_either_way_round() -> None:
    rooms = Rendezvous()
    rooms.finish("1", "injected failure")
    assert await rooms.wait("1", 1) == "injected failure"
    waiter = asyncio.create_task(rooms.wait("2", 5))
    await asyncio.sleep(0.01)
    rooms.finish("2", "ended early")
    assert await waiter == "ended early"


async def test_a_wait_is_bounded_and_forgotten_when_it_gives_up() -> None:
    rooms = Rendezvous()
    with pytest.raises(asyncio.TimeoutError):
        await rooms.wait("9", 0.05)
    assert rooms.waiting == 0
    rooms.finish("9")  # the prefill finishing late keeps its outcome for a decode that asks again
    assert rooms.unclaimed == 1


def test_finished_rooms_nobody_asks_for_are_bounded_in_number_and_age() -> None:
    now = [0.0]
    rooms = Rendezvous(keep_s=10, max_done=3, clock=lambda: now[0])
    for room in "abcde":
        rooms.finish(room)
    assert rooms.unclaimed == 3
    now[0] = 11.0
    rooms.finish("f")  # a, b and c are dropped by number, d and e by age
    assert rooms.unclaimed == 1


@pytest.fixture
async def bootstrap() -> AsyncIterator[tuple[Rendezvous, int]]:
    """A prefill's bootstrap server on a free loopback port."""
    rooms = Rendezvous()
    listener = Listener(BootstrapApp(rooms, "p0"))
    port = await listener.start(HOST, 0)
    try:
        yield rooms, port
    finally:
        await listener.close()


async def test_the_decode_waits_over_the_bootstrap_port_on_one_kept_connection(
    bootstrap: tuple[Rendezvous, int],
) -> None:
    rooms, port = bootstrap
    waiter = KVWaiter(timeout_s=5)
    try:
        rooms.finish("11")
        await waiter.wait(HOST, port, "11")
        pending = asyncio.create_task(waiter.wait(HOST, port, "12"))
        await asyncio.sleep(0.1)
        assert not pending.done() and rooms.waiting == 1
        rooms.finish("12")
        await asyncio.wait_for(pending, 2)
        assert len(waiter._idle[(HOST, port)]) == 1  # both waits on one keep-alive connection
    finally:
        waiter.close()


async def test_the_decodes_errors_name_the_room_and_why(bootstrap: tuple[Rendezvous, int]) -> None:
    rooms, port = bootstrap
    waiter = KVWaiter(timeout_s=0.2)
    try:
        with pytest.raises(KVTransferError, match=r"Request 21 timed out after 0.2s .*did not finish room 21"):
            await waiter.wait(HOST, port, "21")
        rooms.finish("22", "injected failure (fail rate)")
        with pytest.raises(KVTransferError, match=r"prefill p0 failed it: injected failure"):
            await waiter.wait(HOST, port, "22")
    finally:
        waiter.close()


async def test_a_prefill_that_is_not_there_fails_the_wait_at_once() -> None:
    listener = Listener(BootstrapApp(Rendezvous(), "gone"))
    port = await listener.start(HOST, 0)
    await listener.close()
    waiter = KVWaiter(timeout_s=5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(KVTransferError, match=rf"it might be dead \(bootstrap server {HOST}:{port}"):
        await waiter.wait(HOST, port, "31")
    assert loop.time() - started < 2
