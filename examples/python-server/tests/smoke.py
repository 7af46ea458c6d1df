"""Smoke checks against a running mbserver: python3 tests/smoke.py PORT"""
import socket
import sys
import time

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 18300


def raw(data, wait=0.5, port=PORT):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(data)
    s.settimeout(wait)
    out = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            out += c
    except socket.timeout:
        pass
    s.close()
    return out


def batch(parts, headers="", boundary="b1"):
    body = b"".join(b"--" + boundary.encode() + b"\r\n" + p for p in parts) + b"--" + boundary.encode() + b"--\r\n"
    head = (f"POST /api/batch HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\n"
            f"Content-Type: multipart/mixed; boundary={boundary}\r\n"
            f"Content-Length: {len(body)}\r\n{headers}\r\n").encode()
    return head + body


def part(method, cid, fields="", body=b""):
    return (f"Http-Method: {method}\r\nContent-Id: <{cid}>\r\n{fields}\r\n").encode() + body + b"\r\n"


if __name__ == "__main__":
    print(raw(batch([part("GET", "/res/ok"), part("POST", "/res/echo", "Content-Type: text/plain\r\n", b"hello"),
                     part("GET", "/res/status/404")]) ).decode("latin-1"))
