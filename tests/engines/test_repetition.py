"""Repetition-loop detection on real-looking OCR tails, and the attempt bookkeeping."""

from __future__ import annotations

import pytest
from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.repetition import (
    MAX_ATTEMPTS,
    PageAttempts,
    attempt_schedule,
    detect_repetition,
    is_looping,
)
from workbench.schema import Sampling

PAGE = """# Annual report 2023

Revenue grew by 12% to $4.1 million, driven by new contracts in the northern region.

| Quarter | Revenue | Costs |
|---|---|---|
| Q1 | 1.0 | 0.8 |
| Q2 | 1.1 | 0.8 |
| Q3 | 1.0 | 0.9 |
| Q4 | 1.0 | 0.9 |

Contents
Introduction .......... 1
Results ............... 4

Signature: ______________________________
Date: ____________
"""

LONG_ROW = (
    "<tr><td>Total liabilities and shareholders' equity at the end of the reporting period, "
    "restated for the change in accounting policy described in note 2 and for the "
    "reclassification of deferred items set out in note 7</td>"
    "<td>1,234,567</td><td>1,198,004</td><td>1,100,230</td></tr>\n"
)


@pytest.mark.parametrize(
    ("tail", "period"),
    [
        ("." * 400, 1),
        ("_" * 300, 1),
        ("…" * 120, 1),
        ("| 1 | 2 | 3 |\n" * 60, 14),
        ("the the " * 40, 4),  # shortest period wins: "the " repeats
        ("$\\alpha$ " * 30, 9),
    ],
)
def test_loops_are_found_with_their_period(tail: str, period: int) -> None:
    repeated, found_period = detect_repetition(PAGE + tail)[:2]
    assert repeated
    assert found_period == period


def test_long_table_rows_are_found_line_by_line() -> None:
    assert len(LONG_ROW) > 250  # longer than the character window
    result = detect_repetition(PAGE + LONG_ROW * 9)
    assert result.repeated and result.repeats >= 8
    assert result.unit.startswith("<tr><td>Total")


def test_two_line_units_repeat() -> None:
    unit = "Name: John Smith, Department of Agriculture\nAddress: 12 Long Road, Springfield\n"
    assert is_looping(PAGE + unit * 10)


def test_loop_cut_mid_unit_by_max_tokens() -> None:
    assert is_looping(PAGE + "| a | b |\n" * 50 + "| a | ")


def test_loop_followed_by_junk_is_found_with_the_tail_cut() -> None:
    looped = PAGE + "0.00 " * 80 + "</td></tr></table>\n<p>x"
    assert is_looping(looped)


def test_trailing_whitespace_flood() -> None:
    assert is_looping(PAGE + " " * 500)
    assert not is_looping(PAGE + "\n\n\n")


@pytest.mark.parametrize(
    "text",
    [
        "",
        PAGE,
        "Chapter 1 ......... 5",
        "Signature: " + "_" * 40,
        "| x | y |\n" * 4,  # a short table with identical rows is legitimate
        "ha ha ha ha",
        "The committee met on 12 March. The committee met again on 19 March.",
    ],
)
def test_no_false_alarm(text: str) -> None:
    result = detect_repetition(text)
    assert not result.repeated
    assert tuple(result[:2]) == (False, 0)


def _request(n_retries: int) -> PageRequest:
    retries = tuple(Sampling(temperature=0.2 * (i + 1)) for i in range(n_retries))
    return PageRequest(key="k", image=Image.new("L", (4, 4)), retry_sampling=retries)


def test_schedule_is_capped() -> None:
    assert len(attempt_schedule(_request(10))) == MAX_ATTEMPTS
    assert [s.temperature for s in attempt_schedule(_request(2), cap=2)] == [0.0, 0.2]
    assert len(attempt_schedule(_request(0))) == 1


def test_page_attempts_stop_at_first_clean_answer() -> None:
    page = PageAttempts(_request(3))
    assert page.next_sampling == Sampling()
    assert not page.record(page.schedule[0], "." * 300, "length", 300, 1.0)
    hotter = page.next_sampling
    assert hotter is not None and hotter.temperature == 0.2
    assert page.record(hotter, "clean text", "stop", 3, 0.5)
    assert page.next_sampling is None
    out = page.output()
    assert out.ok and out.raw == "clean text" and out.seconds == 1.5
    assert [(a.temperature, a.repeated, a.finish_reason) for a in out.attempts] == [
        (0.0, True, "length"),
        (0.2, False, "stop"),
    ]


def test_page_attempts_all_looping_keeps_last_text() -> None:
    page = PageAttempts(_request(1))
    page.record(page.schedule[0], "ab" * 200, "length", 200, 1.0)
    assert page.record(page.schedule[1], "cd" * 200, "length", 200, 1.0)
    out = page.output()
    assert out.ok and out.raw == "cd" * 200
    assert all(a.repeated for a in out.attempts)


def test_page_attempts_error_after_loop_keeps_the_text() -> None:
    page = PageAttempts(_request(2))
    page.record(page.schedule[0], "ab" * 200, "length", 200, 1.0)
    page.record_error(page.schedule[1], "timed out after 5 s", 5.0)
    assert page.next_sampling is None
    out = page.output()
    assert out.ok and out.raw == "ab" * 200
    assert out.attempts[-1].error == "timed out after 5 s"


def test_page_attempts_error_only() -> None:
    page = PageAttempts(_request(0))
    page.record_error(page.schedule[0], "cannot reach x", 0.1)
    out = page.output()
    assert not out.ok and out.error == "cannot reach x" and out.raw == ""


def _olm_request() -> PageRequest:
    sampling = [Sampling(temperature=t, max_tokens=10) for t in (0.1, 0.1, 0.2)]
    return PageRequest(
        key="p", image=Image.new("L", (8, 8)), sampling=sampling[0],
        retry_sampling=tuple(sampling[1:]), retry_on_length=True,
    )  # fmt: skip


def test_retry_on_length_retries_a_cut_off_answer() -> None:
    # olmOCR retries a page whose finish_reason is not "stop" (pipeline.py), loop or not
    page = PageAttempts(_olm_request())
    assert page.record(page.schedule[0], "plain text, cut", "length", 10, 0.1) is False
    assert page.next_sampling is not None and page.next_sampling.temperature == 0.1
    assert page.record(page.schedule[1], "plain text, whole", "stop", 8, 0.1) is True
    assert page.output().raw == "plain text, whole"


def test_without_retry_on_length_a_cut_off_answer_is_final() -> None:
    request = PageRequest(key="p", image=Image.new("L", (8, 8)),
                          retry_sampling=(Sampling(temperature=0.5),))  # fmt: skip
    page = PageAttempts(request)
    assert page.record(page.schedule[0], "plain text, cut", "length", 10, 0.1) is True


def test_cap_allows_olmocrs_eight_attempts() -> None:
    assert MAX_ATTEMPTS == 8
