"""The mock's HTTP/1.1 layer: parser unit cases, then keep-alive, pipelining and chunking on a live worker."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket

import pytest

from srt_tui.bench.wire import MAX_LINE, HttpError
from srt_tui.mock.http import Request, encode_chunk, read_request
from tests.mock.mockprocs import HOST, Launcher, Worker

# --- parser unit cases ------------------------------------------------------------------------------


def _reader(data: bytes) -> asyncio.StreamReader:
    """A stream holding ``data`` followed by EOF."""
    reader = asyncio.StreamReader(limit=MAX_LINE + 2)
    reader.feed_data(data)
    reader.feed_eof()
    return reader


async def _read_all(data: bytes) -> list[Request]:
    """Every request in ``data`` up to a clean EOF."""
    reader = _reader(data)
    requests = []
    while (request := await read_request(reader)) is not None:
        requests.append(request)
    return requests


async def test_pipelined_requests_are_read_in_order() -> None:
    data = (
        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        b'POST /generate?x=1&y=a%20b HTTP/1.1\r\nContent-Length: 13\r\n\r\n{"text":"hi"}'
        b"GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n"
    )
    first, second, third = await _read_all(data)
    assert (first.method, first.path, first.body) == ("GET", "/health", b"")
    assert second.path == "/generate" and second.query == {"x": "1", "y": "a b"}
    assert second.json() == {"text": "hi"}
    assert first.keep_alive and second.keep_alive and not third.keep_alive


async def test_clean_eof_between_requests_and_leading_blank_lines() -> None:
    assert await _read_all(b"") == []
    (request,) = await _read_all(b"\r\n\r\nGET /x HTTP/1.1\r\n\r\n")
    assert request.path == "/x"


async def test_bare_lf_line_endings_and_header_folding_of_repeats() -> None:
    (request,) = await _read_all(b"GET /a HTTP/1.1\nAccept: a\nACCEPT: b\nX-Empty:\n\n")
    assert request.headers == {"accept": "a, b", "x-empty": ""}


@pytest.mark.parametrize(
    ("version", "connection", "keep"),
    [
        ("HTTP/1.1", None, True),
        ("HTTP/1.1", "close", False),
        ("HTTP/1.1", "Keep-Alive, Close", False),
        ("HTTP/1.0", None, False),
        ("HTTP/1.0", "keep-alive", True),
    ],
)
async def test_keep_alive_rules(version: str, connection: str | None, keep: bool) -> None:
    head = f"GET / {version}\r\n" + (f"Connection: {connection}\r\n" if connection else "") + "\r\n"
    (request,) = await _read_all(head.encode())
    assert request.keep_alive is keep


async def test_chunked_request_body_with_extensions_and_trailers() -> None:
    data = (
        b"POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
        b"GET /next HTTP/1.1\r\n\r\n"
    )
    first, second = await _read_all(data)
    assert first.body == b"hello, world"
    assert second.path == "/next"


async def test_chunked_with_content_length_is_read_chunked_and_closes() -> None:
    data = b"POST / HTTP/1.1\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    (request,) = await _read_all(data)
    assert request.body == b"ok" and not request.keep_alive


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/2.0\r\n\r\n", 505),
        (b"GET / FTP/1.1\r\n\r\n", 400),
        (b"GET  / HTTP/1.1\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nab\r\n0\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX0\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nX: " + b"a" * (MAX_LINE + 10) + b"\r\n\r\n", 431),
    ],
)
async def test_malformed_requests_raise_http_errors(data: bytes, status: int) -> None:
    with pytest.raises(HttpError) as info:
        await _read_all(data)
    assert info.value.status == status


async def test_body_limit_is_413() -> None:
    reader = _reader(b"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world")
    with pytest.raises(HttpError) as info:
        await read_request(reader, max_body=10)
    assert info.value.status == 413


async def test_truncated_request_raises_incomplete_read() -> None:
    with pytest.raises(asyncio.IncompleteReadError):
        await _read_all(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
    with pytest.raises(asyncio.IncompleteReadError):
        await _read_all(b"GET / HTTP/1.1\r\nHost: x")


async def test_invalid_json_body_is_400() -> None:
    (request,) = await _read_all(b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n{x}")
    with pytest.raises(HttpError) as info:
        request.json()
    assert info.value.status == 400


def test_encode_chunk() -> None:
    assert encode_chunk(b"hello world!") == b"c\r\nhello world!\r\n"


# --- an independent response reader for the live tests ------------------------------------------------


def _recv_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(5)
    parts = []
    while chunk := sock.recv(65536):
        parts.append(chunk)
    return b"".join(parts)


def _split_responses(data: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """Parse back-to-back HTTP/1.1 responses (Content-Length or chunked bodies)."""
    responses = []
    while data:
        head, _, data = data.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in header_lines)}
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size_line, _, data = data.partition(b"\r\n")
                size = int(size_line, 16)
                chunk, data = data[:size], data[size + 2 :]
                if size == 0:
                    break
                body += chunk
        else:
            length = int(headers.get("content-length", "0"))
            body, data = data[:length], data[length:]
        responses.append((int(status_line.split()[1]), headers, body))
    return responses


@pytest.fixture(scope="module")
def worker(launcher: Launcher) -> Worker:
    """One regular sglang-flavour worker for the live HTTP tests."""
    return launcher.wait_worker(launcher.start_worker("regular", name="h0"))


def test_pipelined_requests_on_one_socket(worker: Worker) -> None:
    body = json.dumps({"prompt": "a b c", "max_tokens": 3}).encode()
    stream_body = json.dumps({"prompt": "a", "max_tokens": 2, "stream": True}).encode()
    payload = (
        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        + b"POST /v1/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%b"
        % (len(body), body)
        + b"POST /v1/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (len(stream_body), stream_body)
        + b"GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.sendall(payload)
        responses = _split_responses(_recv_all(sock))
    assert [status for status, _, _ in responses] == [200, 200, 200, 200]
    assert json.loads(responses[1][2])["choices"][0]["text"] == "h0 tok1 tok2"
    assert responses[2][1]["transfer-encoding"] == "chunked"
    assert responses[2][2].endswith(b"data: [DONE]\n\n")
    assert responses[3][1]["connection"] == "close"
    assert json.loads(responses[3][2])["data"][0]["id"] == "mock-model"


def test_keep_alive_reuses_one_connection_across_plain_and_streamed(worker: Worker) -> None:
    conn = http.client.HTTPConnection(HOST, worker.port, timeout=5)
    try:
        conn.connect()
        first_socket = conn.sock
        for i in range(10):
            stream = i % 2 == 1
            conn.request(
                "POST",
                "/v1/chat/completions",
                body=json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "stream": stream}),
                headers={"Content-Type": "application/json"},
            )
            response = conn.getresponse()
            body = response.read()
            assert response.status == 200
            assert response.getheader("Connection") == "keep-alive"
            if stream:
                events = [line[6:] for line in body.decode().split("\n\n") if line.startswith("data: ")]
                assert events[-1] == "[DONE]"
                contents = [json.loads(e)["choices"][0]["delta"]["content"] for e in events[:-1]]
                assert "".join(contents) == "h0 tok1 tok2 tok3"
            else:
                assert json.loads(body)["choices"][0]["message"]["content"] == "h0 tok1 tok2 tok3"
        assert conn.sock is first_socket
    finally:
        conn.close()


def test_connection_close_is_honoured(worker: Worker) -> None:
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nConnection: close\r\n\r\n")
        ((status, headers, _),) = _split_responses(_recv_all(sock))
    assert status == 200 and headers["connection"] == "close"


def test_http10_stream_is_close_delimited(worker: Worker) -> None:
    body = json.dumps({"text": "x", "sampling_params": {"max_new_tokens": 2}, "stream": True}).encode()
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.sendall(b"POST /generate HTTP/1.0\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body))
        data = _recv_all(sock)
    head, _, rest = data.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding" not in head and b"Connection: close" in head
    assert rest.endswith(b"data: [DONE]\n\n")


def test_expect_continue_and_chunked_request_body(worker: Worker) -> None:
    body = json.dumps({"prompt": "one two", "max_tokens": 2}).encode()
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.settimeout(5)
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        sock.sendall(encode_chunk(body[:5]) + encode_chunk(body[5:]) + b"0\r\n\r\n")
        responses = _split_responses(_recv_all(sock))
    assert [status for status, _, _ in responses] == [200, 200]
    assert all(json.loads(b)["usage"]["prompt_tokens"] == 2 for _, _, b in responses)


def test_malformed_request_gets_400_and_close(worker: Worker) -> None:
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\nGET /health HTTP/1.1\r\n\r\n")
        ((status, headers, _),) = _split_responses(_recv_all(sock))
    assert status == 400 and headers["connection"] == "close"


def test_head_has_headers_but_no_body(worker: Worker) -> None:
    with socket.create_connection((HOST, worker.port)) as sock:
        sock.sendall(b"HEAD /v1/models HTTP/1.1\r\n\r\nGET /health HTTP/1.1\r\nConnection: close\r\n\r\n")
        data = _recv_all(sock)
    head, _, rest = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"Content-Length: " in head
    assert rest.startswith(b"HTTP/1.1 200")
